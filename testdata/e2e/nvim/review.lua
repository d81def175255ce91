-- Headless Neovim end-to-end test of issue 24's Neovim items (DESIGN.md
-- E13, E16, E18): a new file lands byte-identical and :AgentRevert
-- removes it; the per-hunk review is not modal (the user leaves it with
-- <C-w>w, runs a : command, comes back; :wq, q and a stray <CR> decide
-- nothing; :AgentPending resumes it); a partial acceptance (1 of 2 hunks)
-- and the counts the plugin shows for it; one run window for every run.
-- Run by cmd/agentls/e2e_nvim_review_test.go (TestNeovimReview_Issue24) as
--
--   nvim --headless --clean -u testdata/e2e/nvim/review.lua
--
-- in a copy of testdata/e2e/workspace, with a scripted model: write_file
-- greet_test.go, then edit_file main.go with two hunks. Environment:
-- AGENTLS_E2E_BIN, AGENTLS_E2E_PLUGIN, AGENTLS_E2E_RESULT, AGENTLS_E2E_NEWFILE
-- (the new file's exact content). Keys are typed with nvim_feedkeys while
-- the script sleeps in a coroutine (wait below), so they run as a user's
-- would: through the review buffer's mappings and the command line.

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
local shown = {} -- what the plugin showed: the partial run's summary and run buffer

local agentls = require("agentls")
local review = require("agentls.review")

local function finish()
  t.finish({ shown = shown })
end

vim.ui.select = function(items, _, on_choice)
  on_choice(vim.tbl_contains(items, "Approve") and "Approve" or items[1])
end
vim.notify = function(msg, level)
  table.insert(notes, msg)
  io.stdout:write(string.format("[notify %s] %s\n", level or "", msg))
end

-- wait lets the editor idle until cond() holds (at most ms): the script
-- runs in a coroutine that sleeps on a timer between checks.
local function wait(ms, cond)
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
local function keys(s)
  vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes(s, true, false, true), "t", false)
  local ran = false
  vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes("<Cmd>lua _G.agentls_keys_ran()<CR>", true, false, true), "t", false)
  _G.agentls_keys_ran = function()
    ran = true
  end
  return wait(5000, function()
    return ran
  end)
end

local function read_file(path)
  local f = io.open(path, "rb")
  if not f then
    return nil
  end
  local s = f:read("*a")
  f:close()
  return s
end

local function text(bufnr)
  return table.concat(vim.api.nvim_buf_get_lines(bufnr, 0, -1, false), "\n")
end

local function has(hay, needle)
  return (hay or ""):find(needle, 1, true) ~= nil
end

local function noted(needle)
  for _, n in ipairs(notes) do
    if has(n, needle) then
      return true
    end
  end
  return false
end

local function wait_result(what)
  local ok = wait(30000, function()
    return agentls.last_result ~= nil
  end)
  check(ok, what .. ": result arrived")
  return (agentls.last_result or {}).result or {}
end

local function in_review()
  return review.current ~= nil and vim.api.nvim_get_current_buf() == review.current.buf
end

local function run_windows()
  local n = 0
  for _, w in ipairs(vim.api.nvim_list_wins()) do
    if vim.api.nvim_buf_get_name(vim.api.nvim_win_get_buf(w)):find("agentls://run/", 1, true) then
      n = n + 1
    end
  end
  return n
end

local function run()
  local v = vim.version()
  check(true, string.format("running on Neovim %d.%d.%d", v.major, v.minor, v.patch))
  agentls.setup({ cmd = { getenv("AGENTLS_E2E_BIN"), "serve" }, prompt_timeout = 40000 })
  vim.cmd("edit main.go")
  local main = vim.api.nvim_get_current_buf()
  local main_path = vim.api.nvim_buf_get_name(main)
  if not check(wait(15000, function()
    return agentls.initialized
  end), "server initialized") then
    return
  end

  -- A new file: one review item with all its content; it lands with
  -- exactly the proposed bytes (no extra blank line), not stale.
  local want = getenv("AGENTLS_E2E_NEWFILE")
  local new_path = vim.fn.getcwd() .. "/greet_test.go"
  agentls.last_result = nil
  vim.cmd("AgentExecute Add a test for greet")
  check(wait(40000, in_review), "the review of the new file opened and has the cursor")
  local rv = review.current or {}
  check(#(rv.items or {}) == 1 and has(rv.items[1].title, "create greet_test.go"), "the new file is one review item", rv.items)
  check(rv.buf and has(text(rv.buf), "+func TestGreet(t *testing.T) {"), "the review shows the new file's content", rv.buf and text(rv.buf))
  keys("a<CR>")
  local created = wait_result("new file")
  local e = created.edits or {}
  check(read_file(new_path) == want, "the new file is byte-identical to the proposal", { got = read_file(new_path), want = want })
  check((e.applied or 0) >= 1 and (e.stale or 0) == 0, "the new file counts as applied, not stale", e)
  check(vim.deep_equal(e.created, { "greet_test.go" }), "E18 the new file is named as created", e)
  local created_line = require("agentls.results").edits_text(e) or ""
  check(has(created_line, "; created: greet_test.go"), "E18 the counts line names the new file", created_line)
  check(run_windows() == 1, "the run view has one window", run_windows())

  agentls.last_result = nil
  vim.cmd("AgentRevert")
  local rev = wait_result("revert")
  check(#(rev.restored or {}) == 1 and #(rev.stale or {}) == 0, ":AgentRevert restored the run's one file, none stale", rev)
  check(wait(5000, function()
    return read_file(new_path) == nil
  end), ":AgentRevert removed the new file")

  -- The review is not modal.
  vim.cmd("wincmd t")
  agentls.last_result = nil
  vim.cmd("AgentExecute Greet Earth warmly")
  check(wait(40000, in_review), "the two-hunk review opened and has the cursor")
  rv = review.current or {}
  check(#(rv.items or {}) == 2, "one review item per hunk (2)", rv.items)
  keys("a") -- accept hunk 1
  check(rv.decisions[1] == true and rv.decisions[2] == nil, "a accepted hunk 1, hunk 2 undecided", rv.decisions)

  -- Leave with <C-w>w, look at the file, run a : command, come back.
  keys("<C-w>w")
  check(vim.api.nvim_get_current_buf() ~= rv.buf, "<C-w>w left the review window", vim.api.nvim_buf_get_name(0))
  keys(":let g:agentls_e2e_cmd = line('$')<CR>")
  check(vim.g.agentls_e2e_cmd ~= nil, "a : command ran while the review was open", vim.g.agentls_e2e_cmd)
  check(agentls.last_result == nil and review.current == rv, "the review is still pending, the run waits")
  keys("<C-w>p")
  check(in_review(), "<C-w>p came back to the review")

  -- A stray <CR> applies nothing while a hunk is undecided.
  notes = {}
  keys("<CR>")
  check(not rv.done and agentls.last_result == nil, "<CR> with hunk 2 undecided applied nothing")
  check(noted("undecided"), "the user is told a hunk is undecided", notes)

  -- :wq closes the window and decides nothing; the user is told how to resume.
  notes = {}
  keys(":wq<CR>")
  check(wait(3000, function()
    return noted(":AgentPending")
  end), ":wq says how to resume (:AgentPending)", notes)
  check(not rv.done and #vim.fn.win_findbuf(rv.buf) == 0 and agentls.last_result == nil, ":wq closed the review and decided nothing")
  check(not has(read_file(main_path), '"Hi, "') and not has(text(main), '"Hi, "'), "nothing landed in main.go")

  -- :AgentPending resumes it, decisions kept; q closes it again, deciding nothing.
  keys(":AgentPending<CR>")
  check(in_review() and rv.decisions[1] == true, ":AgentPending reopened the review with hunk 1 still accepted")
  notes = {}
  keys("q")
  check(not rv.done and #vim.fn.win_findbuf(rv.buf) == 0 and noted(":AgentPending"), "q closed the review, deciding nothing", notes)
  keys(":AgentPending<CR>")
  check(in_review(), ":AgentPending reopened it again")

  -- Reject hunk 2 and finish: 1 of 2 hunks applied.
  vim.api.nvim_win_set_cursor(0, { rv.starts[2], 0 })
  keys("r<CR><CR>") -- r asks why (Enter skips), then <CR> finishes
  local part = wait_result("partial execute")
  check(vim.deep_equal((agentls.last_review or {}).result, { true, false }), "hunk 1 accepted, hunk 2 rejected", (agentls.last_review or {}).result)
  check(wait(5000, function()
    local s = read_file(main_path) or ""
    return has(s, '"Hi, "') and has(s, 'greet("world")')
  end), "hunk 1 landed on disk, hunk 2 did not", read_file(main_path))
  -- The counts as the plugin shows them: the notification and the run buffer.
  local pe = part.edits or {}
  local summary
  for _, n in ipairs(notes) do
    if has(n, "edits: ") then
      summary = n:match("edits: [^\n]*")
    end
  end
  local runs = require("agentls.runs")
  local last = runs.runs[#runs.runs]
  local buffer_line = last and text(last.bufnr):match("edits: [^\n]*")
  shown.counts = pe
  shown.summary = summary
  shown.run_buffer = buffer_line
  check(pe.proposed == 2 and pe.applied == 1 and pe.rejected == 1 and (pe.stale or 0) == 0,
    "E18 the counts are per hunk: 2 proposed, 1 applied, 1 rejected", pe)
  local want_line = require("agentls.results").edits_text(pe)
  check(want_line == "edits: 2 proposed, 1 applied, 1 rejected, 0 stale", "E18 the counts line", want_line)
  check(summary == want_line and buffer_line == want_line, "the notification and the run buffer show the server's counts alike", { summary, buffer_line, want_line })
  check(run_windows() == 1, "one run window after three runs", run_windows())

  -- :AgentSessions: the sessions from `agentls sessions --json`; pick the
  -- partial run's session and revert that run.
  local picked = {}
  vim.ui.select = function(items, opts, on_choice)
    local labels = vim.tbl_map(opts.format_item or tostring, items)
    table.insert(picked, labels)
    for i, l in ipairs(labels) do
      if has(l, part.sessionId) and (#picked == 1 or has(l, "revert run " .. part.runId)) then
        return on_choice(items[i])
      end
    end
    on_choice(nil)
  end
  agentls.last_result = nil
  vim.cmd("AgentSessions")
  local srev = wait_result("revert picked in :AgentSessions")
  check(#picked == 2 and #picked[1] >= 2, ":AgentSessions listed the sessions, then the picked one's actions", picked)
  check(srev.reverted == part.runId and #(srev.restored or {}) == 1, ":AgentSessions reverted the picked run", srev)
  check(wait(5000, function()
    return not has(read_file(main_path), '"Hi, "')
  end), "the picked run's hunk is reverted on disk", read_file(main_path))
end

vim.defer_fn(coroutine.wrap(function()
  local ok, err = xpcall(run, debug.traceback)
  if not ok then
    check(false, "no Lua error", err)
  end
  finish()
end), 0)

vim.defer_fn(function()
  check(false, "nvim e2e (review) timed out after 120 s")
  finish()
end, 120000)
