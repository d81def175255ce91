-- agentls for Neovim, loaded at startup from 'runtimepath': it only
-- defines the :Agent… commands (lua/agentls/usercommands.lua), which load
-- the rest of the plugin when run. Nothing starts until
-- require("agentls").setup({...}) is called (`:help agentls-setup`).
-- Set vim.g.loaded_agentls = 1 beforehand to skip this file.

if vim.g.loaded_agentls == 1 or vim.fn.has("nvim-0.7") == 0 then
  return
end
vim.g.loaded_agentls = 1

require("agentls.usercommands").define()
