-- agentls/editText (human_confirm "modify"): the user edits the proposed
-- text with vim.ui.input; cancelling answers null, which the server treats
-- as deny.

local ui = require("agentls.ui")

return function(_, params)
  local text = ui.ask(function(cb)
    vim.ui.input({ prompt = "agentls: " .. (params.prompt or "edit") .. " ", default = params.text or "" }, cb)
  end)
  if text == nil then
    return { text = vim.NIL }
  end
  return { text = text }
end
