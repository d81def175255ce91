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

-- new returns a test run writing its result to the file named by the
-- variable result_var.
function M.new(result_var)
  local t = { checks = {}, failures = {}, result_path = M.getenv(result_var), getenv = M.getenv }
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
