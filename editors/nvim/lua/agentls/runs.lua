-- The live run view of agentls for Neovim (DESIGN.md E16): one scratch
-- buffer per run (agentls://run/N), all shown in one run window, with the
-- model's text as it streams and each tool call with its outcome (the
-- command, its exit code, the files it added, changed and deleted, the
-- first lines of its output; a refused call with its error code), the
-- edit counts, a statusline component, and plans kept as markdown
-- documents.
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

-- The format characters (Unicode category Cf, as Go's unicode.Cf has
-- them) that reorder or hide text: bidi overrides and isolates,
-- zero-width characters, the BOM, tags.
local format_chars = {
  { 0xad, 0xad }, { 0x600, 0x605 }, { 0x61c, 0x61c }, { 0x6dd, 0x6dd }, { 0x70f, 0x70f },
  { 0x890, 0x891 }, { 0x8e2, 0x8e2 }, { 0x180e, 0x180e }, { 0x200b, 0x200f }, { 0x202a, 0x202e },
  { 0x2060, 0x2064 }, { 0x2066, 0x206f }, { 0xfeff, 0xfeff }, { 0xfff9, 0xfffb }, { 0x110bd, 0x110bd },
  { 0x110cd, 0x110cd }, { 0x13430, 0x1343f }, { 0x1bca0, 0x1bca3 }, { 0x1d173, 0x1d17a },
  { 0xe0001, 0xe0001 }, { 0xe0020, 0xe007f },
}

local function hidden(c)
  if c >= 0x80 and c < 0xa0 then
    return true -- C1 controls
  end
  for _, r in ipairs(format_chars) do
    if c >= r[1] and c <= r[2] then
      return true
    end
  end
  return false
end

-- decode returns the code point of the UTF-8 sequence at byte i of s and
-- its length, or nil and 1 for a byte that starts no valid sequence.
local function decode(s, i)
  local b = s:byte(i)
  if b < 0x80 then
    return b, 1
  end
  local n, c, min
  if b >= 0xc2 and b <= 0xdf then
    n, c, min = 2, b - 0xc0, 0x80
  elseif b >= 0xe0 and b <= 0xef then
    n, c, min = 3, b - 0xe0, 0x800
  elseif b >= 0xf0 and b <= 0xf4 then
    n, c, min = 4, b - 0xf0, 0x10000
  else
    return nil, 1
  end
  for k = 1, n - 1 do
    local x = s:byte(i + k)
    if not x or x < 0x80 or x > 0xbf then
      return nil, 1
    end
    c = c * 64 + (x - 0x80)
  end
  if c < min or c > 0x10ffff or (c >= 0xd800 and c <= 0xdfff) then
    return nil, 1
  end
  return c, n
end

local named = { [9] = "\\t", [10] = "\\n", [13] = "\\r" }

-- visible returns s with every control character made visible (T22), as
-- the server's sandbox.Visible does: C0 controls and DEL become \xNN (\n,
-- \r, \t by name), C1 controls and the format characters that reorder or
-- hide text (bidi overrides, zero-width characters) become \uNNNN, and a
-- byte that is not UTF-8 becomes \xNN. A backslash stays.
function M.visible(s)
  s = tostring(s or "")
  if not s:find("[%z\1-\31\127-\255]") then
    return s
  end
  local out, i = {}, 1
  while i <= #s do
    local c, n = decode(s, i)
    if c == nil then
      table.insert(out, string.format("\\x%02x", s:byte(i)))
    elseif named[c] then
      table.insert(out, named[c])
    elseif c < 0x20 or c == 0x7f then
      table.insert(out, string.format("\\x%02x", c))
    elseif hidden(c) then
      table.insert(out, string.format("\\u%04x", c))
    else
      table.insert(out, s:sub(i, i + n - 1))
    end
    i = i + n
  end
  return table.concat(out)
end

-- visible_line is a line of output made visible, its tabs kept: they only move the text right.
local function visible_line(l)
  local parts = vim.split(l, "\t", { plain = true })
  for k, p in ipairs(parts) do
    parts[k] = M.visible(p)
  end
  return table.concat(parts, "\t")
end

-- tool_result renders a tool call's outcome: exit code for commands, the code of a refusal.
function M.tool_result_text(e)
  local tool = M.visible(e.tool or "?")
  local subject = (type(e.subject) == "string" and e.subject ~= "") and (" " .. M.visible(e.subject)) or ""
  if not e.ok then
    local msg = (type(e.message) == "string" and e.message ~= "") and (" — " .. M.visible(e.message)) or ""
    return string.format("  ✗ %s%s refused: %s%s", tool, subject, M.visible(e.code or "error"), msg)
  end
  if e.exitCode ~= nil and e.exitCode ~= vim.NIL then
    return string.format("  %s %s%s: exit %d", e.exitCode == 0 and "✓" or "✗", tool, subject, e.exitCode)
  end
  return string.format("  ✓ %s%s", tool, subject)
end

-- How many files are listed under one command (the rest are counted), and
-- how many non-empty lines of a result's head are shown.
M.max_file_lines = 100
local max_output_lines = 6

local marks = { added = "+", changed = "~", deleted = "-" }

-- file_lines lists the files a command changed that landed (issue 21, S9), one a line:
-- "    + added new.txt", "    ~ changed main.go", "    - deleted old.txt".
function M.file_lines(files)
  local out = {}
  if type(files) ~= "table" then
    return out
  end
  for i, f in ipairs(files) do
    if i > M.max_file_lines then
      table.insert(out, string.format("    … and %d more files", #files - M.max_file_lines))
      break
    end
    local change = type(f) == "table" and type(f.change) == "string" and f.change or "?"
    local path = type(f) == "table" and f.path or "?"
    table.insert(out, string.format("    %s %s %s", marks[change] or "~", M.visible(change), M.visible(path)))
  end
  return out
end

-- output_lines returns the non-empty lines of a result's head; when the files are listed,
-- without the "[files added|changed|deleted: …]" lines before the command's own output
-- (a command that prints such a line keeps it).
local function output_lines(output, listed)
  local out, own = {}, false
  for _, l in ipairs(vim.split(type(output) == "string" and output or "", "\n", { plain = true })) do
    if l:match("%S") then
      if l == "[stdout]" or l == "[stderr]" then
        own = true
      end
      local files_line = l:match("^%[files added: ") or l:match("^%[files changed: ") or l:match("^%[files deleted: ")
      if not (listed and not own and files_line) then
        table.insert(out, l)
      end
    end
  end
  return out
end

-- tool_result_lines renders a tool call's outcome for the run buffer: the outcome, the files
-- a command changed that landed, then the head of the output without the "[files …]" lines
-- the list repeats; text from the model, a command or the repository made visible (T22).
function M.tool_result_lines(e)
  local lines = { M.tool_result_text(e) }
  local files = M.file_lines(e.files)
  vim.list_extend(lines, files)
  for i, l in ipairs(output_lines(e.output, #files > 0)) do
    if i > max_output_lines then
      break
    end
    table.insert(lines, "    │ " .. visible_line(l))
  end
  return lines
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

-- edits_text is the one line that counts a run's edits, the same in the
-- notification and the run buffer (E16, E18): proposed, applied, rejected,
-- refused as stale, and the files created and deleted when the server
-- names them. The counts are hunks. nil when the run had no edits at all.
function M.edits_text(e)
  if type(e) ~= "table" then
    return nil
  end
  local any = (e.proposed or 0) + (e.stale or 0) > 0
  for _, k in ipairs({ "created", "deleted" }) do
    any = any or (type(e[k]) == "table" and #e[k] > 0)
  end
  if not any then
    return nil
  end
  local s = string.format("edits: %d proposed, %d applied, %d rejected, %d stale", e.proposed, e.applied or 0, e.rejected or 0, e.stale or 0)
  for _, k in ipairs({ "created", "deleted" }) do
    if type(e[k]) == "table" and #e[k] > 0 then
      local names = vim.tbl_map(function(f)
        return M.visible(type(f) == "table" and (f.path or "?") or f)
      end, e[k])
      s = s .. string.format("; %s: %s", k, table.concat(names, ", "))
    end
  end
  return s
end

-- run_window is the window that shows a run buffer, if one does: every
-- run goes into that one window (issue 24: each run stacked a split).
local function run_window()
  if M.win and vim.api.nvim_win_is_valid(M.win) then
    return M.win
  end
  for _, r in ipairs(M.runs) do
    local wins = vim.api.nvim_buf_is_valid(r.bufnr) and vim.fn.win_findbuf(r.bufnr) or {}
    if #wins > 0 then
      M.win = wins[1]
      return M.win
    end
  end
  M.win = nil
end

-- open shows run in the run window, a split at the bottom made when there
-- is none; focus stays where it was unless focus is set.
function M.open(run, focus)
  run = run or M.runs[#M.runs]
  if not run then
    vim.notify("agentls: no run yet", vim.log.levels.INFO, { title = "agentls" })
    return
  end
  local cur = vim.api.nvim_get_current_win()
  local win = run_window()
  if win then
    if vim.api.nvim_win_get_buf(win) ~= run.bufnr then
      vim.api.nvim_win_set_buf(win, run.bufnr)
      vim.api.nvim_win_set_cursor(win, { vim.api.nvim_buf_line_count(run.bufnr), 0 })
    end
  else
    vim.cmd("botright " .. M.config.height .. "split")
    win = vim.api.nvim_get_current_win()
    M.win = win
    vim.api.nvim_win_set_buf(win, run.bufnr)
    vim.api.nvim_win_set_cursor(win, { vim.api.nvim_buf_line_count(run.bufnr), 0 })
  end
  vim.api.nvim_set_current_win(focus and win or cur)
end

-- begin starts the view of a run of command ("agentls.plan", …) on arg {uri, range?, instruction?}.
function M.begin(command, arg)
  local mode = command:gsub("^agentls%.", "")
  local target = vim.fn.fnamemodify(vim.uri_to_fname(arg.uri), ":~:.")
  if arg.range then
    target = string.format("%s:%d-%d", target, arg.range.start.line + 1, arg.range["end"].line + 1)
  end
  local run = { n = #M.runs + 1, mode = mode, target = target, instruction = arg.instruction or "", status = "running", step = "starting", streamed = "", explains = {} }
  run.bufnr = vim.api.nvim_create_buf(false, true)
  vim.api.nvim_buf_set_keymap(run.bufnr, "n", "K", "", { noremap = true, desc = "agentls: why was this step allowed, asked or denied?",
    callback = function()
      M.show_why(run, vim.api.nvim_win_get_cursor(0)[1])
    end })
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
    run.streamed = run.streamed .. (e.text or "")
  elseif e.kind == "toolCall" then
    line(run, sub .. "▶ " .. (e.tool or "?"))
    run.step = string.format("turn %d %s", e.turn or 0, e.tool or "?")
    vim.cmd("redrawstatus!")
  elseif e.kind == "toolResult" then
    local first = vim.api.nvim_buf_is_valid(run.bufnr) and vim.api.nvim_buf_line_count(run.bufnr) + 1 or 0
    for _, l in ipairs(M.tool_result_lines(e)) do
      line(run, sub .. l)
    end
    if type(e.explain) == "table" then
      table.insert(run.explains, { line = first, explain = e.explain })
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
  -- The summary is the model's last answer, which streamed in already;
  -- it is written here only when it did not (issue 24: the plan twice).
  local summary = result.summary or ""
  if summary ~= "" and not run.streamed:find(vim.trim(summary), 1, true) then
    for _, l in ipairs(vim.split(summary, "\n", { plain = true })) do
      line(run, l)
    end
  end
  local counts = M.edits_text(result.edits)
  if counts then
    line(run, counts)
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

-- reopen opens the run numbered args (a string; "" for the newest) and focuses it (:AgentRuns).
function M.reopen(args)
  local n = tonumber(args)
  if args ~= "" and not (n and M.runs[n]) then
    vim.notify("agentls: no run " .. args .. " (runs 1-" .. #M.runs .. ")", vim.log.levels.ERROR, { title = "agentls" })
    return
  end
  M.open(n and M.runs[n] or nil, true)
end

-- pick_plan asks for a saved plan with vim.ui.select and edits it (:AgentPlans).
function M.pick_plan()
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
end

-- setup takes the runs option of agentls.setup (the commands are usercommands.lua's).
-- why_lines explains the step shown at line lnum of run's buffer (the
-- nearest tool result at or above it, issue 28, E21): why it was allowed,
-- asked or denied, the rule and where it was written, who approved. nil
-- when no step is there.
function M.why_lines(run, lnum)
  local found
  for _, x in ipairs(run.explains or {}) do
    if x.line <= lnum then
      found = x.explain
    end
  end
  if not found then
    return nil
  end
  local function v(k)
    return type(found[k]) == "string" and M.visible(found[k]) or ""
  end
  local lines = { string.format("%s %s: %s", v("tool"), v("subject"), v("decision")) }
  table.insert(lines, v("because"))
  if v("rule") ~= "" then
    table.insert(lines, "rule: " .. v("rule"))
  end
  table.insert(lines, "from: " .. v("origin") .. (v("profile") ~= "" and (" (profile " .. v("profile") .. ")") or ""))
  if v("approved_by") ~= "" then
    table.insert(lines, "approved by: " .. v("approved_by") .. (v("grant") ~= "" and (" (kept answer " .. v("grant") .. ")") or ""))
  end
  return lines
end

-- show_why shows why_lines in a floating window by the cursor.
function M.show_why(run, lnum)
  local lines = M.why_lines(run, lnum)
  if not lines then
    vim.notify("agentls: no step on this line (K on a tool call's result says why it ran)", vim.log.levels.INFO, { title = "agentls" })
    return
  end
  M.why_win = select(2, vim.lsp.util.open_floating_preview(lines, "", { border = "single", max_width = 100 }))
end

function M.setup(opts)
  M.config = vim.tbl_deep_extend("force", M.config, opts or {})
end

return M
