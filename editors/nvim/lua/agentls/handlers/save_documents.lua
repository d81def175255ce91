-- agentls/saveDocuments: after an edit is applied the server asks the
-- client to write the buffers it names; each loaded one is written
-- (:update), and the answer lists the URIs that were.

local ui = require("agentls.ui")

local function realpath(p)
  return vim.loop.fs_realpath(p) or p
end

local function loaded_buffer(fname)
  fname = realpath(fname)
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(b) and realpath(vim.api.nvim_buf_get_name(b)) == fname then
      return b
    end
  end
end

return function(_, params)
  local saved = {}
  for _, uri in ipairs(params and params.uris or {}) do
    local bufnr = loaded_buffer(vim.uri_to_fname(uri))
    if bufnr then
      local ok, err = pcall(vim.api.nvim_buf_call, bufnr, function()
        vim.cmd("silent update")
      end)
      if ok then
        table.insert(saved, uri)
      else
        ui.notify("cannot save " .. uri .. ": " .. tostring(err), vim.log.levels.WARN)
      end
    end
  end
  return { saved = saved }
end
