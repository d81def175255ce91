-- Headless Neovim test of the run view's files (DESIGN.md E16, E18, T22;
-- issue 21; editors/nvim/lua/agentls/runs.lua): under a command's result,
-- the files it added, changed and deleted, one a line, in place of the
-- [files …] lines of its output, with control characters made visible.
-- Run by cmd/agentls/files_landed_test.go (TestFilesLanded_Issue21_Neovim) as
--
--   nvim --headless --clean -u editors/nvim/test/runs_files_landed.lua
--
-- in a Go module whose main.go is badly formatted. Environment:
-- AGENTLS_TEST_PLUGIN (editors/nvim), AGENTLS_TEST_RESULT (a JSON file it
-- writes: ok, checks, failures), and, for the part against the real server,
-- AGENTLS_TEST_BIN with a scripted model that calls run_command once with
-- AGENTLS_TEST_COMMAND. Exit code 0 when every check passed.

local plugin = os.getenv("AGENTLS_TEST_PLUGIN")
if not plugin or plugin == "" then
  io.stderr:write("test: AGENTLS_TEST_PLUGIN is not set\n")
  vim.cmd("cquit 2")
end
local t = dofile(plugin .. "/test/harness.lua").new("AGENTLS_TEST_RESULT")
local getenv, check = t.getenv, t.check

vim.opt.runtimepath:prepend(plugin)
vim.opt.swapfile = false
vim.opt.shortmess:append("F")


local function text(bufnr)
  return table.concat(vim.api.nvim_buf_get_lines(bufnr, 0, -1, false), "\n")
end

local function has(hay, needle)
  return hay:find(needle, 1, true) ~= nil
end

local function raw_control(s)
  -- C0 but tab, DEL, C1 (UTF-8 \194\128-\194\159), U+202E (\226\128\174)
  return s:find("[%z\1-\8\11-\31\127]") or s:find("\194[\128-\159]") or s:find("\226\128\174")
end

-- Scripted UI: approve every question.
vim.ui.select = function(items, _, on_choice)
  on_choice(vim.tbl_contains(items, "Approve") and "Approve" or items[1])
end
vim.notify = function(msg, level)
  io.stdout:write(string.format("[notify %s] %s\n", level or "", msg))
end

local evil = "e\27[31mvil\226\128\174.txt" -- ESC and U+202E in a file name

-- The rendering, from run events as the server sends them.
local function render()
  local runs = require("agentls.runs")
  runs.setup({ open = false })
  check(runs.visible("a\27[2Jb\r\n\t\194\133\127\255 é") == "a\\x1b[2Jb\\r\\n\\t\\u0085\\x7f\\xff é",
    "visible escapes as sandbox.Visible does", runs.visible("a\27[2Jb\r\n\t\194\133\127\255 é"))
  local run = runs.begin("agentls.execute", { uri = vim.uri_from_fname(vim.fn.getcwd() .. "/main.go"), instruction = "format" })
  runs.event(nil, { sessionId = "unit-1", kind = "started", mode = "execute" })
  local landed = {
    sessionId = "unit-1", kind = "toolResult", turn = 1, tool = "run_command", ok = true, exitCode = 0,
    subject = "echo x > new.txt && gofmt -w main.go && rm old.txt",
    output = "exit code 0, 40ms\n[files added: " .. evil .. ", new.txt]\n[files changed: main.go]\n[files deleted: old.txt]\n"
      .. "[not landed: added .git/hooks/x: the user did not approve it (git runs it)]\n[stdout]\n\tok\27[0m\n",
    files = {
      { path = evil, change = "added" },
      { path = "main.go", change = "changed" },
      { path = "new.txt", change = "added" },
      { path = "old.txt", change = "deleted" },
    },
  }
  runs.event(nil, landed)
  -- A command line with a newline: a buffer line cannot hold one.
  runs.event(nil, { sessionId = "unit-1", kind = "toolResult", turn = 2, tool = "run_command", ok = false,
    code = "approval_denied", subject = "rm -rf\nbuild", message = "no\7" })
  local want = table.concat({
    "  ✓ run_command echo x > new.txt && gofmt -w main.go && rm old.txt: exit 0",
    "    + added e\\x1b[31mvil\\u202e.txt",
    "    ~ changed main.go",
    "    + added new.txt",
    "    - deleted old.txt",
    "    │ exit code 0, 40ms",
    "    │ [not landed: added .git/hooks/x: the user did not approve it (git runs it)]",
    "    │ [stdout]",
    "    │ \tok\\x1b[0m",
    "  ✗ run_command rm -rf\\nbuild refused: approval_denied — no\\x07",
  }, "\n")
  local got = text(run.bufnr)
  check(has(got, want), "the run buffer lists the command's files under its result", got)
  check(not raw_control(got), "no raw control character in the run buffer", got)
  local many = {}
  for i = 0, 102 do
    table.insert(many, { path = string.format("gen/%03d.go", i), change = "added" })
  end
  local lines = runs.tool_result_lines({ tool = "run_command", ok = true, exitCode = 0, subject = "go generate", files = many })
  check(#lines == 102 and lines[101] == "    + added gen/099.go" and lines[102] == "    … and 3 more files",
    "at most 100 files, the rest counted", { #lines, lines[101], lines[102] })
  runs.finish(run, nil, { status = "done", sessionId = "unit-1" })
end

-- Against the real server: the model runs the command, the user approves it,
-- the run buffer lists what landed.
local function server(bin)
  local agentls = require("agentls")
  agentls.setup({ cmd = { bin, "serve" } })
  vim.cmd("edit main.go")
  if not check(vim.wait(15000, function()
    return agentls.initialized
  end, 50), "server initialized") then
    return
  end
  agentls.last_result = nil
  local runs = require("agentls.runs")
  local before = #runs.runs
  vim.cmd("AgentExecute Format main.go")
  local ok = vim.wait(60000, function()
    return agentls.last_result ~= nil
  end, 50)
  check(ok, "execute: result arrived")
  local res = (agentls.last_result or {}).result or {}
  check(res.status == "done", "execute done", agentls.last_result)
  local run = runs.runs[before + 1]
  local got = run and text(run.bufnr) or ""
  local head = "  ✓ run_command " .. runs.visible(getenv("AGENTLS_TEST_COMMAND")) .. ": exit 0"
  local want = table.concat({
    head,
    "    + added e\\x1b[31mvil\\u202e.txt",
    "    ~ changed main.go",
    "    + added new.txt",
    "    - deleted old.txt",
    "    │ exit code 0, ",
  }, "\n")
  check(has(got, want), "the run buffer lists the files the command landed", got)
  check(not has(got, "[files "), "the [files …] lines are not repeated", got)
  check(not raw_control(got), "no raw control character in the run buffer", got)
  local main = table.concat(vim.fn.readfile("main.go"), "\n")
  check(has(main, "func main() {\n\tprintln"), "main.go was formatted on disk", main)
  check(vim.fn.filereadable("new.txt") == 1 and vim.fn.filereadable("old.txt") == 0, "new.txt landed, old.txt is gone")
end

local function finish()
  t.finish()
end

local ok, err = pcall(render)
if not ok then
  check(false, "no Lua error (rendering)", err)
end
local bin = os.getenv("AGENTLS_TEST_BIN")
if bin and bin ~= "" then
  ok, err = pcall(server, bin)
  if not ok then
    check(false, "no Lua error (server)", err)
  end
end
finish()
