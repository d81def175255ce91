-- Headless Neovim end-to-end test for editors/nvim (DESIGN.md E13), run by
-- cmd/agentls/e2e_test.go as
--
--   nvim --headless --clean -u testdata/e2e/nvim/init.lua
--
-- in a copy of testdata/e2e/workspace, with the fake model playing
-- testdata/e2e/scripts/nvim.jsonl (plan, execute, review, human_confirm,
-- then a session: plan, execute this plan, revert; in that order).
-- Environment:
--   AGENTLS_E2E_BIN     the agentls binary
--   AGENTLS_E2E_PLUGIN  the repo's editors/nvim (put on 'runtimepath')
--   AGENTLS_E2E_RESULT  where to write the result JSON
-- Prompts never block: vim.ui.select picks "Approve" (showMessageRequest),
-- vim.ui.input answers the scripted instruction, and each per-hunk review
-- gets the keys queued for it (review_keys), typed into the review window
-- with nvim_feedkeys as soon as it opens.
-- Exit code 0 when every check passed, 1 otherwise.

local plugin = os.getenv("AGENTLS_E2E_PLUGIN")
if not plugin or plugin == "" then
  io.stderr:write("test: AGENTLS_E2E_PLUGIN is not set\n")
  vim.cmd("cquit 2")
end
local t = dofile(plugin .. "/test/harness.lua").new("AGENTLS_E2E_RESULT")
local getenv, check = t.getenv, t.check

vim.opt.runtimepath:prepend(plugin)
vim.opt.swapfile = false
vim.opt.autoread = true -- :checktime reloads an unmodified buffer without asking
vim.opt.shortmess:append("F")
if vim.lsp.log and vim.lsp.log.set_level then
  vim.lsp.log.set_level("debug")
else
  vim.lsp.set_log_level("debug")
end

local prompts = {}

local function finish()
  t.finish({ prompts = prompts })
end

-- Scripted UI: never block, record every prompt.
local inputs = { "List the steps to capitalize the greeting.", "Capitalize the greeting." }
local code_action_title = "agentls: Plan…"
local prefer_edit = false
-- review_keys: the keys for the next reviews, one string per review. A
-- review that opens with none queued is a failure (and is closed with q).
local review_keys = {}
local reviews = 0
local function on_review(review)
  reviews = reviews + 1
  local keys = table.remove(review_keys, 1)
  if type(keys) == "function" then
    keys = keys(review)
  end
  local titles = vim.tbl_map(function(i)
    return i.title
  end, review.items)
  table.insert(prompts, { kind = "review", hunks = titles, keys = keys })
  if not keys then
    check(false, "a review opened with no keys scripted for it", titles)
    keys = "R\r"
  end
  vim.api.nvim_feedkeys(keys, "t", false)
end
vim.ui.select = function(items, opts, on_choice)
  local choice
  if opts and opts.kind == "codeaction" then
    -- Items are {client_id, action} tuples (0.7) or {action = …, ctx = …} (0.10+).
    local function action(item)
      return item.action or item[2]
    end
    for _, item in ipairs(items) do
      if action(item).title == code_action_title then
        choice = item
      end
    end
    table.insert(prompts, { kind = "select codeaction", choice = choice and action(choice).title })
    on_choice(choice)
    return
  end
  local wants = { "Approve" }
  if prefer_edit then
    wants = { "Edit…" }
  end
  for _, want in ipairs(wants) do
    if vim.tbl_contains(items, want) then
      choice = want
      break
    end
  end
  table.insert(prompts, { kind = "select", prompt = opts and opts.prompt, items = items, choice = choice })
  on_choice(choice)
end
vim.ui.input = function(opts, on_confirm)
  local answer = table.remove(inputs, 1)
  table.insert(prompts, { kind = "input", prompt = opts and opts.prompt, answer = answer })
  on_confirm(answer)
end
vim.notify = function(msg, level)
  io.stdout:write(string.format("[notify %s] %s\n", level or "", msg))
end
-- The plugin answers showMessageRequest per client; this global fallback
-- makes sure the blocking default (inputlist) can never run here.
vim.lsp.handlers["window/showMessageRequest"] = function(_, params)
  table.insert(prompts, { kind = "showMessageRequest (global fallback)", prompt = params.message })
  for _, a in ipairs(params.actions or {}) do
    if a.title == "Approve" then
      return a
    end
  end
  return vim.NIL
end

local function read_file(path)
  local f = assert(io.open(path, "r"))
  local s = f:read("*a")
  f:close()
  return s
end

local function buf_text(bufnr)
  return table.concat(vim.api.nvim_buf_get_lines(bufnr, 0, -1, false), "\n") .. "\n"
end

local agentls = require("agentls")

-- wait is vim.wait that lets the editor idle meanwhile: the script runs
-- in a coroutine, which sleeps on a timer between checks, so that typed
-- keys (nvim_feedkeys) reach the review's mappings as a user's would.
-- vim.wait would hold the event loop and no mapping would run.
local function wait(ms, cond, interval)
  local co, is_main = coroutine.running()
  if not co or is_main then
    return vim.wait(ms, cond, interval)
  end
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
    end, interval or 20)
    coroutine.yield()
  end
end

-- wait_result waits for the next command result (set by the plugin).
local function wait_result(what, ms)
  local ok = wait(ms or 20000, function()
    return agentls.last_result ~= nil
  end, 50)
  check(ok, what .. ": result arrived")
  local r = agentls.last_result or {}
  if r.err then
    check(false, what .. ": no error", r.err)
  end
  return r.result or {}
end

local function run()
  local v = vim.version()
  check(true, string.format("running on Neovim %d.%d.%d", v.major, v.minor, v.patch))
  -- The run view (runs.lua) stays closed: the checks below count windows.
  agentls.setup({ cmd = { getenv("AGENTLS_E2E_BIN"), "serve" }, on_review = on_review, prompt_timeout = 15000, runs = { open = false } })

  vim.cmd("edit main.go")
  local bufnr = vim.api.nvim_get_current_buf()
  local path = vim.api.nvim_buf_get_name(bufnr)
  local before = read_file(path)

  if not check(wait(15000, function()
    return agentls.initialized
  end, 50), "server initialized") then
    return
  end
  local client = agentls.client()
  check(client and vim.lsp.buf_is_attached(bufnr, client.id), "main.go attached to the agentls client")
  local cmds = client.server_capabilities.executeCommandProvider and client.server_capabilities.executeCommandProvider.commands or {}
  check(vim.tbl_contains(cmds, "agentls.execute"), "E2 server advertises agentls.execute", cmds)

  -- Code actions on a range offer plan / review / execute (E2).
  local resp = vim.lsp.buf_request_sync(bufnr, "textDocument/codeAction", {
    textDocument = { uri = vim.uri_from_bufnr(bufnr) },
    range = { start = { line = 4, character = 0 }, ["end"] = { line = 6, character = 1 } },
    context = { diagnostics = {} },
  }, 5000)
  local titles = {}
  for _, r in pairs(resp or {}) do
    for _, a in ipairs(r.result or {}) do
      table.insert(titles, a.title)
    end
  end
  check(#titles == 3, "E2 three code actions for a selection", titles)

  -- Plan: read-only, a summary comes back and nothing changes (E4).
  agentls.last_result = nil
  vim.cmd("AgentPlan Explain how main.go greets and plan capitalizing it")
  local plan = wait_result("plan")
  check(plan.status == "done", "plan status done", plan)
  check(type(plan.summary) == "string" and plan.summary ~= "", "plan summary arrived", plan.summary)
  check(buf_text(bufnr) == before, "plan left the buffer unchanged")
  check(read_file(path) == before, "plan left the file unchanged")
  check(agentls.last_preview == nil, "plan proposed no edit")

  -- The code action "agentls: Plan…" carries no instruction: the plugin
  -- asks for it with vim.ui.input, then runs the plan (E13).
  agentls.last_result = nil
  if vim.lsp.buf.range_code_action then -- Neovim 0.7-0.9
    vim.lsp.buf.range_code_action(nil, { 5, 0 }, { 7, 0 })
  else -- 0.10 and later
    vim.lsp.buf.code_action({ range = { start = { 5, 0 }, ["end"] = { 7, 0 } } })
  end
  local plan2 = wait_result("code action plan")
  check(agentls.last_result and agentls.last_result.command == "agentls.plan", "code action ran agentls.plan", agentls.last_result)
  check(plan2.status == "done", "code action plan status done", plan2)
  local asked_plan = vim.tbl_filter(function(p)
    return p.kind == "input"
  end, prompts)
  check(#asked_plan == 1, "code action plan asked for the instruction", prompts)
  check(buf_text(bufnr) == before, "code action plan left the buffer unchanged")

  -- Execute on lines 5-7 without arguments: the instruction is asked with
  -- vim.ui.input, the edit is previewed and applied, then saved (E6, E13).
  agentls.last_result = nil
  table.insert(review_keys, "a\r") -- accept the hunk, confirm
  vim.cmd("5,7AgentExecute")
  local exec = wait_result("execute")
  check(exec.status == "done", "execute status done", exec)
  local e = exec.edits or {}
  check(e.proposed == 1 and e.applied == 1 and e.rejected == 0, "execute edits {proposed 1, applied 1, rejected 0}", e)
  local asked = vim.tbl_filter(function(p)
    return p.kind == "input"
  end, prompts)
  check(#asked == 2 and asked[2].answer == "Capitalize the greeting.", "instruction asked with vim.ui.input", prompts)
  local preview = table.concat(agentls.last_preview or {}, "\n")
  check(preview:find('+\treturn "Hello, " + name', 1, true) ~= nil, "diff preview shows the change", agentls.last_preview)
  check(preview:find('-\treturn "hello, " + name', 1, true) ~= nil, "diff preview shows the old line", agentls.last_preview)
  check(preview:find(' import "fmt"', 1, true) ~= nil and preview:find(' func main() {', 1, true) ~= nil,
    "E13 the review shows three lines of context around the hunk", agentls.last_preview)
  check(preview:find("a accept", 1, true) ~= nil and preview:find("<CR> finish", 1, true) ~= nil, "E13 the review shows its keys", agentls.last_preview)
  check(preview:find("[+] accepted", 1, true) ~= nil, "E13 the review marks the accepted hunk", agentls.last_preview)
  local after = before:gsub('"hello, "', '"Hello, "')
  check(buf_text(bufnr) == after, "edit landed in the buffer", buf_text(bufnr))
  local saved = wait(5000, function()
    return read_file(path) == after
  end, 50)
  check(saved, "edit is on disk (agentls/saveDocuments)", read_file(path))
  check(not vim.bo[bufnr].modified, "buffer is not modified after the save")
  check(#vim.api.nvim_list_wins() == 1, "diff preview window closed")

  -- Review: findings become diagnostics and the quickfix list (E5).
  agentls.last_result = nil
  vim.cmd("AgentReview")
  local review = wait_result("review")
  check(review.status == "done", "review status done", review)
  check(review.findings and #review.findings == 1, "review returned one finding", review.findings)
  local diags = {}
  wait(3000, function()
    diags = vim.diagnostic.get(bufnr)
    return #diags > 0
  end, 50)
  check(#diags == 1, "one diagnostic on main.go", diags)
  if diags[1] then
    check(diags[1].source == "agentls", "diagnostic source agentls", diags[1])
    check(diags[1].lnum == 5, "diagnostic on line 6", diags[1])
  end
  local qf = vim.fn.getqflist()
  check(#qf == 1 and qf[1].lnum == 6, "finding in the quickfix list", qf)

  -- Execute again, and reject the proposed edit at the preview (E6, E13).
  local saved_text = read_file(path)
  table.insert(review_keys, "R\r") -- reject every hunk, finish
  agentls.last_result = nil
  vim.cmd("AgentExecute Capitalize World too")
  local rej = wait_result("rejected execute")
  check(rej.status == "done", "rejected execute status done", rej)
  local re = rej.edits or {}
  check(re.proposed == 1 and re.applied == 0 and re.rejected == 1, "rejected execute edits {proposed 1, applied 0, rejected 1}", re)
  check(buf_text(bufnr) == saved_text, "rejected edit left the buffer unchanged", buf_text(bufnr))
  check(read_file(path) == saved_text, "rejected edit left the file unchanged")

  -- Two hunks: accept the first, reject the second (E13). Only the first
  -- lands; the server tells the model which hunk was rejected.
  table.insert(review_keys, "ar\r")
  agentls.last_result = nil
  vim.cmd("AgentExecute Say hi to Earth")
  local part = wait_result("partial execute")
  check(part.status == "done", "partial execute status done", part)
  local pe = part.edits or {}
  check(pe.proposed == 2 and pe.applied == 1 and pe.rejected == 1, "E18 partial execute edits per hunk {proposed 2, applied 1, rejected 1}", pe)
  local rv = agentls.last_review or {}
  check(#(rv.items or {}) == 2, "E13 the review has one entry per hunk (2)", rv.items)
  check(vim.deep_equal(rv.result, { true, false }), "E13 hunk 1 accepted, hunk 2 rejected", rv.result)
  local want = saved_text:gsub('"Hello, "', '"Hi, "')
  check(buf_text(bufnr) == want, "E13 the buffer holds hunk 1 only", buf_text(bufnr))
  check(wait(5000, function()
    return read_file(path) == want
  end, 50), "E13 the partial edit is on disk", read_file(path))

  -- A change the policy allows outright needs no confirmation: the plugin
  -- applies it without a review (needsConfirmation = false).
  local policy = getenv("XDG_CONFIG_HOME") .. "/agentls/policy.json"
  vim.fn.mkdir(vim.fn.fnamemodify(policy, ":h"), "p")
  local pf = assert(io.open(policy, "w"))
  pf:write('{"allow": ["edit_file(main.go)"]}')
  pf:close()
  local before_reviews = reviews
  agentls.last_result = nil
  vim.cmd("AgentExecute Greet the world by name")
  local pre = wait_result("preapproved execute")
  os.remove(policy)
  check(pre.status == "done", "preapproved execute status done", pre)
  check((pre.edits or {}).applied == 1, "preapproved edit applied", pre.edits)
  check(reviews == before_reviews, "E13 no review for a preapproved edit", reviews - before_reviews)
  local want2 = want:gsub('greet%("world"%)', 'greet("World")')
  check(buf_text(bufnr) == want2, "preapproved edit landed in the buffer", buf_text(bufnr))
  check(wait(5000, function()
    return read_file(path) == want2 and not vim.bo[bufnr].modified
  end, 50), "preapproved edit saved")

  -- The file changes on disk while the review is open: the accepted hunk
  -- is refused as stale, nothing lands in the buffer or on the disk (T17).
  local outside = "// changed outside the editor\n" .. want2
  table.insert(review_keys, function()
    local f = assert(io.open(path, "w"))
    f:write(outside)
    f:close()
    return "a\r"
  end)
  agentls.last_result = nil
  vim.cmd("AgentExecute Say hey")
  local st = wait_result("stale execute")
  local se = st.edits or {}
  check(se.proposed == 1 and se.applied == 0, "T17 an edit whose file changed during the review is not applied", se)
  check(se.stale == 1 and se.rejected == 0, "E18 it counts as stale, not rejected", se)
  check(buf_text(bufnr) == want2, "T17 the buffer is unchanged", buf_text(bufnr))
  check(read_file(path) == outside, "T17 the outside change on disk is kept", read_file(path))
  -- Take the outside change into the buffer, as :checktime does.
  vim.cmd("checktime")
  check(wait(3000, function()
    return buf_text(bufnr) == outside
  end, 50), "the buffer reloads the outside change", buf_text(bufnr))

  -- human_confirm: the model asks the user itself; the user picks Edit…
  -- and changes the proposed text, which the model receives (T16).
  prefer_edit = true
  table.insert(inputs, "git push --dry-run")
  agentls.last_result = nil
  vim.cmd("AgentExecute Push when ready")
  local hc = wait_result("human_confirm")
  prefer_edit = false
  check(hc.status == "done", "human_confirm run done", hc)
  local st = hc.steps or {}
  check(#st == 1 and st[1].tool == "human_confirm" and st[1].ok, "human_confirm answered through agentls/editText", st)

  -- A16: a plan, then :AgentExecutePlan carries it out in the plan's
  -- session (no instruction asked), then :AgentRevert restores the file
  -- through workspace/applyEdit (previewed and applied like any edit).
  local before_session = read_file(path)
  local inputs_before = #vim.tbl_filter(function(p)
    return p.kind == "input"
  end, prompts)
  agentls.last_result = nil
  vim.cmd("AgentPlan Plan greeting the whole world")
  local splan = wait_result("session plan")
  check(splan.status == "done" and splan.sessionId ~= nil and splan.runId == splan.sessionId .. "-1", "A16 plan starts a session", splan)
  agentls.last_result = nil
  table.insert(review_keys, "a\r") -- the plan's edit
  table.insert(review_keys, "a\r") -- the revert, previewed like any edit
  vim.cmd("AgentExecutePlan")
  local sexec = wait_result("execute this plan")
  check(sexec.sessionId == splan.sessionId and sexec.runId == splan.sessionId .. "-2", "A16 the execute continues the plan's session", sexec)
  check((sexec.edits or {}).applied == 1, "A16 the plan's edit was applied", sexec.edits)
  local inputs_after = #vim.tbl_filter(function(p)
    return p.kind == "input"
  end, prompts)
  check(inputs_after == inputs_before, "A16 execute this plan asked for no instruction", prompts)
  local changed = before_session:gsub('greet%("World"%)', 'greet("whole world")')
  check(wait(5000, function()
    return read_file(path) == changed
  end, 50), "A16 the plan's edit is on disk", read_file(path))
  agentls.last_result = nil
  vim.cmd("AgentRevert")
  local rev = wait_result("revert")
  check(rev.reverted == sexec.runId and #(rev.restored or {}) == 1 and #(rev.stale or {}) == 0, "A16 AgentRevert restored the run's file", rev)
  check(wait(5000, function()
    return read_file(path) == before_session
  end, 50), "A16 the revert is on disk", read_file(path))
  check(buf_text(bufnr) == before_session, "A16 the revert is in the buffer", buf_text(bufnr))

  -- Cancel with nothing running answers an empty list.
  agentls.last_result = nil
  vim.cmd("AgentCancel")
  local cancel = wait_result("cancel", 5000)
  check(type(cancel.cancelled) == "table" and #cancel.cancelled == 0, "AgentCancel with nothing running", cancel)

  -- Stopping the client (shutdown, exit) ends the server process.
  vim.lsp.stop_client(agentls.client_id)
  check(wait(5000, function()
    return agentls.client_id == nil
  end, 50), "server exits after shutdown+exit (vim.lsp.stop_client)")
end

vim.defer_fn(coroutine.wrap(function()
  local ok, err = xpcall(run, debug.traceback)
  if not ok then
    check(false, "test script raised an error", err)
  end
  finish()
end), 0)

-- Never hang: give up well before the Go test's own timeout.
vim.defer_fn(function()
  check(false, "nvim e2e timed out after 50 s")
  finish()
end, 50000)
