-- The harness of the headless-Neovim test scripts (editors/nvim/test/*.lua
-- and testdata/e2e/nvim/*.lua): load it with
--   dofile(PLUGIN .. "/test/harness.lua").new("RESULT_VARIABLE")
-- Each check is printed and recorded; finish writes the result file the
-- Go side reads (ok, checks, failures, lsp_log and the script's extra
-- fields), stops agentls's client and quits: exit code 0 when every check
-- passed, 1 otherwise, 2 when the environment is incomplete.
local M = {}

-- getenv returns the variable k, or quits with exit code 2 when it is unset.
function M.getenv(k)
  local v = os.getenv(k)
  if not v or v == "" then
    io.stderr:write("test: " .. k .. " is not set\n")
    vim.cmd("cquit 2")
  end
  return v
end

-- wait lets the editor idle until cond() holds (at most ms); the script
-- runs in a coroutine that sleeps on a timer between checks.
function M.wait(ms, cond)
  local co = coroutine.running()
  local deadline = vim.loop.now() + ms
  while true do
    if cond() then
      return true
    end
    if vim.loop.now() >= deadline then
      return false
    end
    vim.defer_fn(function()
      coroutine.resume(co)
    end, 20)
    coroutine.yield()
  end
end

-- keys types keys as a user would and waits until Neovim has run them.
function M.keys(s)
  vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes(s, true, false, true), "t", false)
  local ran = false
  vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes("<Cmd>lua _G.agentls_keys_ran()<CR>", true, false, true), "t", false)
  _G.agentls_keys_ran = function()
    ran = true
  end
  return M.wait(5000, function()
    return ran
  end)
end

-- read_file returns the bytes of path, or nil.
function M.read_file(path)
  local f = io.open(path, "rb")
  if not f then
    return nil
  end
  local s = f:read("*a")
  f:close()
  return s
end

-- new returns a test run writing its result to the file named by the
-- variable result_var.
function M.new(result_var)
  local t = { checks = {}, failures = {}, result_path = M.getenv(result_var), getenv = M.getenv,
    wait = M.wait, keys = M.keys, read_file = M.read_file }
  local finished = false

  function t.check(cond, what, detail)
    local line = (cond and "ok   " or "FAIL ") .. what
    if not cond and detail ~= nil then
      line = line .. ": " .. (type(detail) == "string" and detail or vim.inspect(detail))
    end
    table.insert(t.checks, line)
    if not cond then
      table.insert(t.failures, line)
    end
    io.stdout:write(line .. "\n")
    return cond
  end

  -- finish ends the run once; extra fields join the result.
  function t.finish(extra)
    if finished then
      return
    end
    finished = true
    local out = vim.tbl_extend("force", extra or {}, {
      ok = #t.failures == 0,
      checks = t.checks,
      failures = t.failures,
      lsp_log = vim.lsp.get_log_path(),
    })
    local f = io.open(t.result_path, "w")
    if f then
      f:write(vim.json.encode(out))
      f:close()
    end
    local agentls = package.loaded["agentls"]
    if agentls and agentls.client_id then
      vim.lsp.stop_client(agentls.client_id)
      vim.wait(3000, function()
        return agentls.client_id == nil
      end, 50)
    end
    io.stdout:write(string.format("nvim test: %d checks ok, %d failed\n", #t.checks - #t.failures, #t.failures))
    vim.cmd(#t.failures == 0 and "qall!" or "cquit 1")
  end

  return t
end

return M
