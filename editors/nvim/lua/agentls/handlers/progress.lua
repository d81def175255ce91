-- $/progress: Neovim's own handler, and the title and message of a begin
-- or report echoed as "agentls: title: message".

return function(err, params, ctx, config)
  vim.lsp.handlers["$/progress"](err, params, ctx, config)
  local v = params and params.value
  if type(v) == "table" and (v.kind == "begin" or v.kind == "report") then
    local parts = {}
    for _, s in ipairs({ v.title or "", v.message or "" }) do
      if s ~= "" then
        table.insert(parts, s)
      end
    end
    if #parts > 0 then
      vim.api.nvim_echo({ { "agentls: " .. table.concat(parts, ": ") } }, false, {})
    end
  end
end
