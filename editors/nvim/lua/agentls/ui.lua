-- How the plugin speaks to the user: notifications, and questions asked
-- with vim.ui.select / vim.ui.input that are waited for while the event
-- loop keeps running, so that a server request can be answered with the
-- choice (Neovim 0.7 sends a server request's response when its handler
-- returns). Questions give up after the prompt_timeout option.

local M = {}

function M.notify(msg, level)
  vim.notify(msg, level or vim.log.levels.INFO, { title = "agentls" })
end

-- ask calls prompt_fn(callback) and waits for the callback's value, at most
-- prompt_timeout; nil when no answer came.
function M.ask(prompt_fn)
  local done, answer = false, nil
  prompt_fn(function(v)
    answer, done = v, true
  end)
  vim.wait(require("agentls").config.prompt_timeout, function()
    return done
  end, 50)
  return answer
end

-- select asks for one of items (strings) and returns it, or nil.
function M.select(items, prompt)
  return M.ask(function(cb)
    vim.ui.select(items, { prompt = prompt }, cb)
  end)
end

return M
