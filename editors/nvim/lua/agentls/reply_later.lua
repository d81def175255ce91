-- Answering a server request later (DESIGN.md E13, issue 24): the review
-- of a proposed edit is a buffer the user may leave and come back to, so
-- the workspace/applyEdit handler must return to the event loop and send
-- its answer when the user finishes, not when the handler returns.
--
-- Neovim 0.10 and later run a server request's handler in a coroutine
-- (their own showMessageRequest handler yields in it): the handler yields
-- and is resumed with the answer. Neovim 0.7 calls the handler on the main
-- coroutine and writes its return value at once; for it, the client's
-- stdin pipe is wrapped when the server starts (wrap_start): the handler
-- returns a placeholder, whose response the wrapper holds back, and the
-- real answer is written with the placeholder's request ID later.

local M = {}

local uv = vim.loop

-- The placeholder result's only key.
local KEY = "agentlsReplyLater"

-- pipes[client_id] = { pipe = the real stdin pipe, ids = { token = request ID },
-- ready = { token = result written before its ID was known } }
local pipes = {}
local next_token = 0

local function frame(payload)
  local body = vim.json.encode(payload)
  return string.format("Content-Length: %d\r\n\r\n%s", #body, body)
end

-- proxy stands for the stdin pipe in 0.7's rpc.lua, which calls only
-- write, close and is_closing on it: it holds back the placeholder
-- responses and records their request IDs.
local function proxy(state)
  local p = {}
  function p.write(_, data, cb)
    if type(data) == "string" and data:find(KEY, 1, true) then
      local body = data:match("\r\n\r\n(.*)$")
      local ok, msg = pcall(vim.json.decode, body or "")
      local token = ok and type(msg) == "table" and msg.method == nil and type(msg.result) == "table" and msg.result[KEY]
      if token then
        local ready = state.ready[token]
        if ready ~= nil then
          state.ready[token] = nil
          return state.pipe:write(frame({ jsonrpc = "2.0", id = msg.id, result = ready }), cb)
        end
        state.ids[token] = msg.id
        return true
      end
    end
    return state.pipe:write(data, cb)
  end
  return setmetatable(p, {
    __index = function(_, k)
      local v = state.pipe[k]
      if type(v) == "function" then
        return function(_, ...)
          return v(state.pipe, ...)
        end
      end
      return v
    end,
  })
end

-- needs_wrap: the Neovim versions whose rpc.lua answers a server request
-- when its handler returns (before 0.10).
function M.needs_wrap()
  return vim.fn.has("nvim-0.10") == 0
end

-- wrap_start calls start() (which starts the client and returns its ID)
-- with the stdin pipe of the server it spawns wrapped, on Neovim < 0.10.
function M.wrap_start(start)
  if not M.needs_wrap() then
    return start()
  end
  local new_pipe, spawn = uv.new_pipe, uv.spawn
  local state = { ids = {}, ready = {} }
  local first = true
  uv.new_pipe = function(...)
    local pipe = new_pipe(...)
    if first then -- rpc.lua makes stdin first
      first = false
      state.pipe = pipe
      return proxy(state)
    end
    return pipe
  end
  uv.spawn = function(cmd, opts, ...)
    if opts and opts.stdio and type(opts.stdio[1]) == "table" and state.pipe then
      opts.stdio[1] = state.pipe
    end
    return spawn(cmd, opts, ...)
  end
  local ok, id = pcall(start)
  uv.new_pipe, uv.spawn = new_pipe, spawn
  if not ok then
    error(id, 0)
  end
  if id and state.pipe then
    pipes[id] = state
  end
  return id
end

-- await runs begin(reply) and returns what the request handler returns:
-- on Neovim 0.10+ it yields until reply(result) is called and returns
-- result; on 0.7 it returns the placeholder at once and reply(result)
-- writes the answer later. Without either (a client not started through
-- wrap_start) it waits for reply, at most timeout ms, and the review is
-- then modal.
function M.await(client_id, timeout, begin)
  local co, is_main = coroutine.running()
  local yieldable = co and not is_main and not M.needs_wrap()
  if yieldable then
    local done, value, waiting = false, nil, false
    begin(function(result)
      if done then
        return
      end
      done, value = true, result
      if waiting then
        local ok, err = coroutine.resume(co, result)
        if not ok then
          vim.notify("agentls: answering the server failed: " .. tostring(err), vim.log.levels.ERROR, { title = "agentls" })
        end
      end
    end)
    if done then
      return value
    end
    waiting = true
    return coroutine.yield()
  end
  local state = pipes[client_id]
  if state then
    next_token = next_token + 1
    local token = tostring(next_token)
    local answered = false
    begin(function(result)
      if answered then
        return
      end
      answered = true
      local id = state.ids[token]
      if id == nil then
        state.ready[token] = result -- the placeholder is not written yet
        return
      end
      state.ids[token] = nil
      if not state.pipe:is_closing() then
        state.pipe:write(frame({ jsonrpc = "2.0", id = id, result = result }))
      end
    end)
    return { [KEY] = token }
  end
  local done, value = false, nil
  begin(function(result)
    done, value = true, result
  end)
  vim.wait(timeout, function()
    return done
  end, 20)
  return value
end

-- forget drops a stopped client's pipe.
function M.forget(client_id)
  pipes[client_id] = nil
end

return M
