-- The live run view of agentls for Neovim (DESIGN.md E16): one scratch
-- buffer per run (agentls://run/N) with the model's text as it streams and
-- each tool call with its outcome (the command, its exit code, the first
-- lines of its output; a refused call with its error code), a statusline
-- component, and plans kept as markdown documents.
--
--   :AgentRuns [N]   reopen the run buffer N (default: the newest)
--   :AgentPlans      pick a saved plan and open it
--   require("agentls").statusline()   e.g. "agentls execute: turn 2 run_command"
--
-- The server sends agentls/runEvent because the plugin announces
-- capabilities.experimental.agentls.runEvents. The events of a run carry
-- its session ID; its "started" event comes first and is matched to the
-- oldest run of this editor that has no session yet.

local M = {}

M.config = {
  -- Open the run buffer in a split (keeping the cursor where it is) when a run starts.
  open = true,
  -- Height of that split.
  height = 12,
  -- Where plans are kept.
  plans_dir = vim.fn.stdpath("data") .. "/agentls/plans",
}

M.runs = {} -- every run of this editor, oldest first
local active = {} -- runs without a result yet, oldest first

local function set_lines(run, from, to, lines)
  if not vim.api.nvim_buf_is_valid(run.bufnr) then
    return
  end
  vim.bo[run.bufnr].modifiable = true
  vim.api.nvim_buf_set_lines(run.bufnr, from, to, false, lines)
  vim.bo[run.bufnr].modifiable = false
  -- Follow the end in the windows that show the run.
  local last = vim.api.nvim_buf_line_count(run.bufnr)
  for _, win in ipairs(vim.fn.win_findbuf(run.bufnr)) do
    pcall(vim.api.nvim_win_set_cursor, win, { last, 0 })
  end
end

-- line appends whole lines after the streamed text.
local function line(run, ...)
  run.mid_line = false
  set_lines(run, -1, -1, { ... })
end

-- text appends a piece of the model's answer, continuing the last line.
local function text(run, piece)
  local parts = vim.split(piece, "\n", { plain = true })
  if run.mid_line then
    local last = vim.api.nvim_buf_get_lines(run.bufnr, -2, -1, false)[1] or ""
    parts[1] = last .. parts[1]
    set_lines(run, -2, -1, parts)
  else
    set_lines(run, -1, -1, parts)
  end
  run.mid_line = parts[#parts] ~= ""
end

-- tool_result renders a tool call's outcome: exit code for commands, the code of a refusal.
function M.tool_result_text(e)
  local subject = (e.subject and e.subject ~= "") and (" " .. e.subject) or ""
  if not e.ok then
    return string.format("  ✗ %s%s refused: %s%s", e.tool or "?", subject, e.code or "error", e.message and (" — " .. e.message) or "")
  end
  if e.exitCode ~= nil and e.exitCode ~= vim.NIL then
    return string.format("  %s %s%s: exit %d", e.exitCode == 0 and "✓" or "✗", e.tool, subject, e.exitCode)
  end
  return string.format("  ✓ %s%s", e.tool or "?", subject)
end

-- step_text renders a result step: "run_command exit 126", "edit_file ok", "read_file approval_denied".
function M.step_text(s)
  if type(s) ~= "table" then
    return tostring(s)
  end
  if s.exitCode ~= nil and s.exitCode ~= vim.NIL then
    return string.format("%s exit %d", s.tool or "?", s.exitCode)
  end
  if s.ok == false then
    return string.format("%s %s", s.tool or "?", s.code or "failed")
  end
  return string.format("%s ok", s.tool or "?")
end

-- open shows run in a split at the bottom; focus stays where it was.
function M.open(run, focus)
  run = run or M.runs[#M.runs]
  if not run then
    vim.notify("agentls: no run yet", vim.log.levels.INFO, { title = "agentls" })
    return
  end
  local wins = vim.fn.win_findbuf(run.bufnr)
  if #wins > 0 then
    if focus then
      vim.api.nvim_set_current_win(wins[1])
    end
    return
  end
  local cur = vim.api.nvim_get_current_win()
  vim.cmd("botright " .. M.config.height .. "split")
  vim.api.nvim_win_set_buf(0, run.bufnr)
  vim.api.nvim_win_set_cursor(0, { vim.api.nvim_buf_line_count(run.bufnr), 0 })
  if not focus then
    vim.api.nvim_set_current_win(cur)
  end
end

-- begin starts the view of a run of command ("agentls.plan", …) on arg {uri, range?, instruction?}.
function M.begin(command, arg)
  local mode = command:gsub("^agentls%.", "")
  local target = vim.fn.fnamemodify(vim.uri_to_fname(arg.uri), ":~:.")
  if arg.range then
    target = string.format("%s:%d-%d", target, arg.range.start.line + 1, arg.range["end"].line + 1)
  end
  local run = { n = #M.runs + 1, mode = mode, target = target, instruction = arg.instruction or "", status = "running", step = "starting" }
  run.bufnr = vim.api.nvim_create_buf(false, true)
  vim.api.nvim_buf_set_name(run.bufnr, string.format("agentls://run/%d %s", run.n, mode))
  -- Highlighting only, by the syntax file: the markdown filetype's
  -- ftplugin starts a tree-sitter parser on Neovim 0.12, which fails where
  -- the parser is not installed; an enhancement must not stop the run.
  pcall(function()
    vim.bo[run.bufnr].syntax = "markdown"
  end)
  vim.bo[run.bufnr].bufhidden = "hide"
  vim.bo[run.bufnr].modifiable = false
  table.insert(M.runs, run)
  table.insert(active, run)
  line(run, string.format("# agentls %s %s", mode, target))
  if run.instruction ~= "" then
    line(run, "instruction: " .. run.instruction)
  end
  line(run, "")
  if M.config.open then
    M.open(run, false)
  end
  return run
end

-- event handles agentls/runEvent (a notification handler).
function M.event(_, e)
  if type(e) ~= "table" then
    return
  end
  local run
  for _, r in ipairs(active) do
    if r.session == e.sessionId then
      run = r
    end
  end
  if not run and e.kind == "started" then
    for _, r in ipairs(active) do
      if not r.session then
        run = r
        run.session = e.sessionId
        line(run, "session " .. e.sessionId)
        break
      end
    end
  end
  if not run then
    return -- a run of another client of the same server
  end
  local sub = (e.depth or 0) > 0 and "  [sub-agent] " or ""
  if e.kind == "text" then
    text(run, e.text or "")
  elseif e.kind == "toolCall" then
    line(run, sub .. "▶ " .. (e.tool or "?"))
    run.step = string.format("turn %d %s", e.turn or 0, e.tool or "?")
    vim.cmd("redrawstatus!")
  elseif e.kind == "toolResult" then
    line(run, sub .. M.tool_result_text(e))
    local n = 0
    for _, l in ipairs(vim.split(e.output or "", "\n", { plain = true })) do
      if l:match("%S") and n < 6 then
        line(run, sub .. "    │ " .. l)
        n = n + 1
      end
    end
  elseif e.kind == "log" then
    line(run, string.format("%s[%s] %s", sub, e.level or "info", e.message or ""))
  elseif e.kind == "ended" then
    line(run, "── run " .. (e.status or "?"))
  end
end

local function save_plan(run, result)
  vim.fn.mkdir(M.config.plans_dir, "p")
  local path = string.format("%s/%s-%s.md", M.config.plans_dir, os.date("%Y%m%d-%H%M%S"), result.sessionId or run.n)
  local lines = {
    "# Plan: " .. (run.instruction ~= "" and run.instruction or run.target),
    "",
    "- target: `" .. run.target .. "`",
    "- session: " .. (result.sessionId or "?"),
    "",
  }
  vim.list_extend(lines, vim.split(result.summary or "", "\n", { plain = true }))
  vim.fn.writefile(lines, path)
  return path
end

-- finish records the result of run; it returns the path of the saved plan, if any.
function M.finish(run, err, result)
  for i, r in ipairs(active) do
    if r == run then
      table.remove(active, i)
      break
    end
  end
  vim.cmd("redrawstatus!")
  if err then
    run.status = "failed"
    line(run, "", "── failed: " .. (err.message or tostring(err)))
    return nil
  end
  result = result or {}
  run.status = result.status or "?"
  line(run, "", string.format("── %s (session %s)", run.status, result.sessionId or "?"))
  for _, l in ipairs(vim.split(result.summary or "", "\n", { plain = true })) do
    line(run, l)
  end
  local e = result.edits
  if e and (e.proposed or 0) > 0 then
    line(run, string.format("edits: %d proposed, %d applied, %d rejected", e.proposed, e.applied or 0, e.rejected or 0))
  end
  local steps = {}
  for _, s in ipairs(result.steps or {}) do
    table.insert(steps, M.step_text(s))
  end
  if #steps > 0 then
    line(run, "steps: " .. table.concat(steps, "; "))
  end
  if run.mode == "plan" and run.status == "done" and (result.summary or "") ~= "" then
    run.plan = save_plan(run, result)
    line(run, "plan saved: " .. run.plan .. " (:AgentPlans)")
  end
  return run.plan
end

-- statusline is "" when nothing runs, else the newest running run and its step.
function M.statusline()
  local run = active[#active]
  if not run then
    return ""
  end
  local more = #active > 1 and string.format(" (+%d)", #active - 1) or ""
  return string.format("agentls %s: %s%s", run.mode, run.step, more)
end

-- plans lists the saved plans, newest first.
function M.plans()
  local files = vim.fn.glob(M.config.plans_dir .. "/*.md", false, true)
  table.sort(files, function(a, b)
    return a > b
  end)
  return files
end

function M.setup(opts)
  M.config = vim.tbl_deep_extend("force", M.config, opts or {})
  vim.api.nvim_create_user_command("AgentRuns", function(o)
    local n = tonumber(o.args)
    if o.args ~= "" and not (n and M.runs[n]) then
      vim.notify("agentls: no run " .. o.args .. " (runs 1-" .. #M.runs .. ")", vim.log.levels.ERROR, { title = "agentls" })
      return
    end
    M.open(n and M.runs[n] or nil, true)
  end, { nargs = "?", desc = "agentls: reopen a run's live view (default: the newest)" })
  vim.api.nvim_create_user_command("AgentPlans", function()
    local plans = M.plans()
    if #plans == 0 then
      vim.notify("agentls: no saved plan yet; :AgentPlan first", vim.log.levels.INFO, { title = "agentls" })
      return
    end
    vim.ui.select(plans, { prompt = "agentls plans (newest first)", format_item = function(p)
      return vim.fn.fnamemodify(p, ":t")
    end }, function(choice)
      if choice then
        vim.cmd("edit " .. vim.fn.fnameescape(choice))
      end
    end)
  end, { desc = "agentls: open a saved plan" })
end

return M
