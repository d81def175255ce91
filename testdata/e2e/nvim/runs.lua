-- Headless Neovim end-to-end test of the live run view (DESIGN.md E16,
-- editors/nvim/lua/agentls/runs.lua) and :checkhealth agentls, run by
-- cmd/agentls/e2e_vscode_test.go (TestE2E/Neovim_runs_E16) as
--
--   nvim --headless --clean -u testdata/e2e/nvim/runs.lua
--
-- in a copy of testdata/e2e/workspace (plus a build.sh without the execute
-- bit), with the fake model playing testdata/e2e/scripts/nvim-runs.jsonl.
-- Environment: AGENTLS_E2E_BIN, AGENTLS_E2E_PLUGIN, AGENTLS_E2E_RESULT,
-- AGENTLS_E2E_PLANS (the plans directory). Exit code 0 when every check passed.

local plugin = os.getenv("AGENTLS_E2E_PLUGIN")
if not plugin or plugin == "" then
  io.stderr:write("test: AGENTLS_E2E_PLUGIN is not set\n")
  vim.cmd("cquit 2")
end
local t = dofile(plugin .. "/test/harness.lua").new("AGENTLS_E2E_RESULT")
local getenv, check = t.getenv, t.check

vim.opt.runtimepath:prepend(plugin)
vim.opt.swapfile = false
vim.opt.shortmess:append("F")

local notes = {}

local agentls = require("agentls")

local function finish()
  t.finish()
end

-- Scripted UI: approve every question, pick the first item of a list.
vim.ui.select = function(items, _, on_choice)
  on_choice(vim.tbl_contains(items, "Approve") and "Approve" or items[1])
end
vim.ui.input = function(_, on_confirm)
  on_confirm("unused")
end
vim.notify = function(msg, level)
  table.insert(notes, msg)
  io.stdout:write(string.format("[notify %s] %s\n", level or "", msg))
end

local function text(bufnr)
  return table.concat(vim.api.nvim_buf_get_lines(bufnr, 0, -1, false), "\n")
end

local function has(hay, needle)
  return hay:find(needle, 1, true) ~= nil
end

local function wait_result(what)
  local ok = vim.wait(30000, function()
    return agentls.last_result ~= nil
  end, 50)
  check(ok, what .. ": result arrived")
  return (agentls.last_result or {}).result or {}
end

local function run()
  -- Without the server on PATH the plugin says so (not "not a file under …").
  agentls.setup({ cmd = { "agentls-not-installed-e2e", "serve" } })
  vim.cmd("edit main.go")
  notes = {}
  vim.cmd("AgentPlan anything")
  check(notes[1] ~= nil and has(notes[1], "is not on PATH") and has(notes[1], "go install ./cmd/agentls"),
    "a missing server binary is named, with how to install it", notes)

  agentls.setup({ cmd = { getenv("AGENTLS_E2E_BIN"), "serve" }, runs = { plans_dir = getenv("AGENTLS_E2E_PLANS") } })
  vim.cmd("edit main.go")
  local main = vim.api.nvim_get_current_buf()
  if not check(vim.wait(15000, function()
    return agentls.initialized
  end, 50), "server initialized") then
    return
  end

  -- Plan: the text streams into run buffer 1; the plan is kept as markdown.
  agentls.last_result = nil
  vim.cmd("AgentPlan Plan capitalizing the greeting")
  local plan = wait_result("plan")
  local runs = require("agentls.runs")
  local r1 = runs.runs[1]
  check(r1 ~= nil and vim.api.nvim_buf_get_name(r1.bufnr):find("agentls://run/1 plan", 1, true) ~= nil, "run 1 has its scratch buffer", r1 and vim.api.nvim_buf_get_name(r1.bufnr))
  local t1 = r1 and text(r1.bufnr) or ""
  check(has(t1, "# agentls plan main.go") and has(t1, "session ") and has(t1, "Plan:\n1. Read greet in main.go.\n2. Capitalize the greeting.\n── run done"),
    "the plan's text streamed into the run buffer (before the run's end, not from the result)", t1)
  check(vim.api.nvim_get_current_buf() == main, "the run view did not take the cursor")
  local _, copies = t1:gsub("Capitalize the greeting%.", "")
  check(copies == 1, "the plan's text is in the run buffer once (issue 24)", t1)
  local plan_path = agentls.last_result.plan
  check(plan_path and vim.fn.filereadable(plan_path) == 1, "the plan is saved as a document", plan_path)
  if plan_path then
    local doc = table.concat(vim.fn.readfile(plan_path), "\n")
    check(has(doc, "# Plan: Plan capitalizing the greeting") and has(doc, "2. Capitalize the greeting."), "the plan document holds the plan", doc)
  end
  check(plan.status == "done", "plan done", plan)

  -- Execute: a command that exits 126, a refused read, a slow answer.
  agentls.last_result = nil
  vim.cmd("AgentExecute Build and capitalize")
  local seen = ""
  vim.wait(20000, function()
    local s = agentls.statusline()
    if s:find("agentls execute: turn", 1, true) then
      seen = s
    end
    return seen ~= "" and agentls.last_result ~= nil
  end, 20)
  check(seen ~= "", "the statusline shows the running run and its step", seen)
  local ex = wait_result("execute")
  check(agentls.statusline() == "", "the statusline is empty once the run ended", agentls.statusline())
  local r2 = runs.runs[2]
  local t2 = r2 and text(r2.bufnr) or ""
  check(has(t2, "Building first.") and has(t2, "▶ run_command"), "the tool call is in the run buffer", t2)
  check(has(t2, "✗ run_command ./build.sh: exit 126"), "the command's exit code is shown", t2)
  check(has(t2, "✗ read_file ../outside.txt refused: path_outside_root"), "a refused call shows its error code", t2)
  check(has(t2, "steps: run_command exit 126; read_file path_outside_root"), "the steps show exit 126, not ok", t2)
  check(ex.status == "done", "execute done", ex)
  -- K on a step says why it ran or was refused (issue 28, E21).
  local lnum_cmd, lnum_read
  for i, l in ipairs(vim.api.nvim_buf_get_lines(r2.bufnr, 0, -1, false)) do
    if has(l, "✗ run_command ./build.sh: exit 126") then
      lnum_cmd = i
    elseif has(l, "✗ read_file ../outside.txt refused") then
      lnum_read = i
    end
  end
  local why_cmd = lnum_cmd and table.concat(runs.why_lines(r2, lnum_cmd) or {}, "\n") or ""
  check(has(why_cmd, "run_command ./build.sh: ask") and has(why_cmd, "asked because") and has(why_cmd, "approved by: user"),
    "K on the command's step: asked, why, and that the user approved", why_cmd)
  local why_read = lnum_read and table.concat(runs.why_lines(r2, lnum_read) or {}, "\n") or ""
  check(has(why_read, "read_file") and has(why_read, "deny") and has(why_read, "denied because"), "K on the refused read: denied, and why", why_read)
  runs.open(r2, true)
  vim.api.nvim_win_set_cursor(0, { lnum_cmd or 1, 0 })
  vim.cmd("normal K")
  local float = runs.why_win and vim.api.nvim_win_is_valid(runs.why_win) and text(vim.api.nvim_win_get_buf(runs.why_win)) or ""
  check(has(float, "asked because"), "K opens the explanation in a floating window", float)
  if runs.why_win and vim.api.nvim_win_is_valid(runs.why_win) then
    vim.api.nvim_win_close(runs.why_win, true)
  end
  vim.cmd("wincmd p")
  local run_wins = vim.tbl_filter(function(w)
    return vim.api.nvim_buf_get_name(vim.api.nvim_win_get_buf(w)):find("agentls://run/", 1, true) ~= nil
  end, vim.api.nvim_list_wins())
  check(#run_wins == 1 and vim.api.nvim_win_get_buf(run_wins[1]) == r2.bufnr, "the second run reused the run window (issue 24)", #run_wins)

  -- :AgentRuns 1 reopens the first run; :AgentPlans opens the saved plan.
  vim.cmd("AgentRuns 1")
  check(r1 and vim.api.nvim_get_current_buf() == r1.bufnr, ":AgentRuns 1 shows run 1")
  vim.cmd("AgentPlans")
  check(plan_path and vim.api.nvim_buf_get_name(0) == plan_path, ":AgentPlans opens the saved plan", vim.api.nvim_buf_get_name(0))

  -- :checkhealth agentls
  vim.cmd("checkhealth agentls")
  local health = text(0)
  check(has(health, "server binary: " .. getenv("AGENTLS_E2E_BIN")), "checkhealth finds the binary", health)
  check(has(health, "version: agentls"), "checkhealth shows the version", health)
  check(has(health, "model: e2e-fake-model"), "checkhealth shows the model", health)
  check(has(health, "seccomp") and has(health, "landlock"), "checkhealth lists the sandbox layers", health)
  local audit = health:match("[^\n]*audit log: [^\n]*") or ""
  check(has(audit, "(writable)") and has(audit, "OK") and not has(audit, "WARN"), "checkhealth: a writable audit log is OK, not a warning (issue 24)", audit)

  -- ++image= attaches a picture (issue 25, A12): a missing file is refused
  -- before anything starts; shot.png goes to the model as an image (the Go
  -- side checks the request), and the word is not part of the instruction.
  vim.cmd("edit main.go")
  notes = {}
  local before = #runs.runs
  vim.cmd("AgentPlan ++image=missing.png Describe it")
  check(notes[1] ~= nil and has(notes[1], "no readable image file: missing.png") and #runs.runs == before,
    "a missing ++image file is named and no run starts", notes)
  local completed = require("agentls.usercommands").complete_run("++image=sh")
  check(vim.tbl_contains(completed, "++image=shot.png"), "++image= completes file names", completed)
  agentls.last_result = nil
  vim.cmd("AgentPlan Describe the layout bug ++image=shot.png in the picture")
  local shot = wait_result("plan with an image")
  check(shot.status == "done", "the plan with an image is done", shot)
  local r3 = runs.runs[#runs.runs]
  check(r3 and r3.instruction == "Describe the layout bug in the picture", "the instruction without the ++image word", r3 and r3.instruction)
end

local ok, err = pcall(run)
if not ok then
  check(false, "no Lua error", err)
end
finish()
