-- window/showMessageRequest (DESIGN.md E13): the server's questions
-- (Approve, Deny, Always in this session, …) are asked with
-- vim.ui.select, never with the blocking inputlist of Neovim's default
-- handler. No answer means deny (null).

local ui = require("agentls.ui")

return function(_, params)
  local actions = params and params.actions or {}
  if #actions == 0 then
    ui.notify(params.message)
    return vim.NIL
  end
  local titles = vim.tbl_map(function(a)
    return a.title
  end, actions)
  local choice = ui.select(titles, "agentls: " .. params.message)
  for _, a in ipairs(actions) do
    if a.title == choice then
      return a
    end
  end
  return vim.NIL -- no answer means deny
end
