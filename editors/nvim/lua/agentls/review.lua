-- agentls per-hunk review (DESIGN.md E13, E18; issue 24): the hunks of a
-- proposed edit in a buffer (agentls://review/N) shown in a split, with
-- context lines, and buffer-local mappings to accept or reject each hunk
-- or the rest, and to finish. It is not modal: the user may leave the
-- window (<C-w>w), look at the file, run : commands and come back; q,
-- :wq or closing the window leave the hunks pending and say how to
-- resume (:AgentPending). Nothing is applied before every hunk is
-- decided: <CR> with hunks undecided goes to the first of them. The
-- server's request waits meanwhile (handlers/apply_edit.lua,
-- reply_later.lua), at most the timeout, after which nothing is applied.
-- r asks why (optional; the model reads it), R asks once for the rest;
-- e opens the hunk's proposed text for editing, and :w there accepts the
-- hunk with the user's text (issue 28). Works on Neovim 0.7 and later.

local M = {}

-- The keys, shown on the review's second line.
M.help = "a accept  r reject (why?)  e edit, :w accepts  A accept rest  R reject rest  ]c/[c next/prev hunk  <CR> finish (all decided)  q close, decide later (:AgentPending)"

M.pending = {} -- reviews waiting for the user, oldest first; the first is shown
M.current = nil -- the review shown, M.pending[1]
local count = 0

local mark = { [true] = "[+] accepted", [false] = "[-] rejected" }

local function header(rv, i)
  local m = mark[rv.decisions[i]] or "[ ] undecided"
  if rv.decisions[i] == true and rv.edited[i] then
    m = "[~] accepted as you edited it"
  elseif rv.decisions[i] == false and rv.reasons[i] then
    m = m .. " (" .. rv.reasons[i]:gsub("[%c]", " ") .. ")"
  end
  return string.format("%s  hunk %d/%d: %s", m, i, #rv.items, rv.items[i].title)
end

local function notify(msg, level)
  vim.notify(msg, level or vim.log.levels.INFO, { title = "agentls" })
end

local function tally(rv)
  local acc, rej = 0, 0
  for i = 1, #rv.items do
    if rv.decisions[i] == true then
      acc = acc + 1
    elseif rv.decisions[i] == false then
      rej = rej + 1
    end
  end
  return acc, rej, #rv.items - acc - rej
end

local function set_line(rv, row, text)
  vim.bo[rv.buf].modifiable = true
  vim.api.nvim_buf_set_lines(rv.buf, row - 1, row, false, { text })
  vim.bo[rv.buf].modifiable = false
  vim.bo[rv.buf].modified = false
end

local function windows(rv)
  if not (rv.buf and vim.api.nvim_buf_is_valid(rv.buf)) then
    return {}
  end
  return vim.fn.win_findbuf(rv.buf)
end

local function render(rv)
  local acc, rej, und = tally(rv)
  for i = 1, #rv.items do
    set_line(rv, rv.starts[i], header(rv, i))
  end
  set_line(rv, 1, string.format("%s — hunk %d/%d, %d accepted, %d rejected, %d undecided — answer by %s",
    rv.title, rv.cur, #rv.items, acc, rej, und, os.date("%H:%M:%S", rv.deadline)))
end

-- hunk_at is the hunk whose lines hold row.
local function hunk_at(rv, row)
  local h = 1
  for i, s in ipairs(rv.starts) do
    if row >= s then
      h = i
    end
  end
  return h
end

local function cursor_hunk(rv)
  local win = vim.api.nvim_get_current_win()
  if vim.api.nvim_win_get_buf(win) == rv.buf then
    rv.cur = hunk_at(rv, vim.api.nvim_win_get_cursor(win)[1])
  end
  return rv.cur
end

local function goto_hunk(rv, i)
  rv.cur = math.max(1, math.min(i, #rv.items))
  for _, win in ipairs(windows(rv)) do
    vim.api.nvim_win_set_cursor(win, { rv.starts[rv.cur], 0 })
  end
end

local function next_undecided(rv)
  local n = #rv.items
  for step = 1, n do
    local i = (rv.cur - 1 + step) % n + 1
    if rv.decisions[i] == nil then
      return goto_hunk(rv, i)
    end
  end
end

local show -- function(rv): shows rv in the review window and focuses it

-- finish ends rv: result is one boolean per item, or nil (nothing applied,
-- reason says why). The review's window closes, the next pending review
-- opens, and on_done runs outside the mapping or timer that finished it.
local function finish(rv, result, reason)
  if rv.done then
    return
  end
  rv.done = true
  if rv.timer then
    rv.timer:stop()
    rv.timer:close()
    rv.timer = nil
  end
  for i, r in ipairs(M.pending) do
    if r == rv then
      table.remove(M.pending, i)
      break
    end
  end
  if M.current == rv then
    M.current = nil
  end
  rv.result, rv.reason = result, reason
  if rv.buf and vim.api.nvim_buf_is_valid(rv.buf) then
    rv.lines = vim.api.nvim_buf_get_lines(rv.buf, 0, -1, false)
    for _, win in ipairs(windows(rv)) do
      if #vim.api.nvim_list_wins() > 1 then
        pcall(vim.api.nvim_win_close, win, true)
      end
    end
    pcall(vim.api.nvim_buf_delete, rv.buf, { force = true })
  end
  if rv.prev and vim.api.nvim_win_is_valid(rv.prev) then
    pcall(vim.api.nvim_set_current_win, rv.prev)
  end
  vim.schedule(function()
    rv.on_done(result, rv)
    if M.pending[1] and not M.current then
      show(M.pending[1])
    end
  end)
end

-- decide sets the decision of hunk i (nil: the hunk under the cursor).
local function decide(rv, v)
  local i = cursor_hunk(rv)
  rv.decisions[i], rv.reasons[i], rv.edited[i] = v, nil, nil
  next_undecided(rv)
  render(rv)
end

local function decide_rest(rv, v)
  local decided = {}
  for i = 1, #rv.items do
    if rv.decisions[i] == nil then
      rv.decisions[i] = v
      table.insert(decided, i)
    end
  end
  render(rv)
  return decided
end

-- ask_reason asks why the hunks were rejected; an answer is optional
-- (Enter or <Esc> skips it) and goes to the model with those hunks.
local function ask_reason(rv, hunks)
  if #hunks == 0 then
    return
  end
  local what = #hunks == 1 and string.format("hunk %d", hunks[1]) or string.format("%d hunks", #hunks)
  vim.ui.input({ prompt = "agentls: why reject " .. what .. "? (optional, Enter skips) " }, function(s)
    s = s and vim.trim(s) or ""
    if s == "" or rv.done then
      return
    end
    for _, i in ipairs(hunks) do
      if rv.decisions[i] == false then
        rv.reasons[i] = s
      end
    end
    render(rv)
  end)
end

local function reject(rv)
  local i = cursor_hunk(rv)
  decide(rv, false)
  ask_reason(rv, { i })
end

-- edit_hunk opens the proposed text of the hunk under the cursor in a
-- buffer of its own; :w there accepts the hunk with the text as the user
-- left it (their change goes to the model), closing it without :w
-- changes nothing. A new file or a file operation cannot be edited here.
local function edit_hunk(rv)
  local i = cursor_hunk(rv)
  local item = rv.items[i]
  if item.text == nil then
    notify("this item cannot be edited here: a accepts it, r rejects it", vim.log.levels.WARN)
    return
  end
  local text = rv.edited[i] or item.text
  local nl = text:sub(-1) == "\n"
  local lines = vim.split(nl and text:sub(1, -2) or text, "\n", { plain = true })
  local buf = vim.api.nvim_create_buf(false, true)
  vim.bo[buf].buftype = "acwrite"
  vim.bo[buf].bufhidden = "wipe"
  vim.bo[buf].swapfile = false
  pcall(vim.api.nvim_buf_set_name, buf, string.format("agentls://review/%d/hunk/%d", rv.n, i))
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  if item.filetype then
    vim.bo[buf].filetype = item.filetype
  end
  vim.bo[buf].modified = false
  vim.cmd("aboveleft split")
  local win = vim.api.nvim_get_current_win()
  vim.api.nvim_win_set_buf(win, buf)
  vim.api.nvim_create_autocmd("BufWriteCmd", { buffer = buf, callback = function()
    if rv.done then
      return
    end
    local new = table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), "\n") .. (nl and "\n" or "")
    rv.edited[i] = new ~= item.text and new or nil
    rv.reasons[i] = nil
    rv.decisions[i] = true
    vim.bo[buf].modified = false
    if vim.api.nvim_win_is_valid(win) and #vim.api.nvim_list_wins() > 1 then
      vim.api.nvim_win_close(win, true)
    end
    local back = windows(rv)[1]
    if back then
      vim.api.nvim_set_current_win(back)
    end
    next_undecided(rv)
    render(rv)
    notify(string.format("hunk %d accepted %s", i, rv.edited[i] and "with your text" or "as proposed"))
  end })
  notify(string.format("editing hunk %d: :w accepts it with your text, :q! leaves it undecided", i))
end

-- confirm finishes the review once every hunk is decided; a <CR> with
-- hunks undecided applies nothing and goes to the first of them.
local function confirm(rv)
  local _, _, und = tally(rv)
  if und > 0 then
    rv.cur = #rv.items
    next_undecided(rv)
    render(rv)
    notify(string.format("%d hunk(s) undecided: a or r each, or A / R the rest, then <CR>", und), vim.log.levels.WARN)
    return
  end
  local result = {}
  for i = 1, #rv.items do
    result[i] = rv.decisions[i] == true
  end
  finish(rv, result)
end

-- resume_hint is what the user is told when a review is left open.
local function resume_hint(rv)
  local _, _, und = tally(rv)
  return string.format("review left open (%d of %d hunks undecided, nothing applied yet); :AgentPending resumes it, answer by %s",
    und, #rv.items, os.date("%H:%M:%S", rv.deadline))
end

local function map(rv, lhs, fn, desc)
  vim.api.nvim_buf_set_keymap(rv.buf, "n", lhs, "", { noremap = true, nowait = true, desc = desc, callback = function()
    if not rv.done then
      fn(rv)
    end
  end })
end

-- make_buf makes the review's buffer: its lines, mappings and autocmds.
local function make_buf(rv)
  local lines = { "", M.help, "" }
  rv.starts = {}
  for i, item in ipairs(rv.items) do
    rv.starts[i] = #lines + 1
    table.insert(lines, header(rv, i))
    vim.list_extend(lines, item.lines)
    table.insert(lines, "")
  end
  local buf = vim.api.nvim_create_buf(false, true)
  rv.buf = buf
  -- acwrite: :w and :wq run BufWriteCmd below instead of failing or writing a file.
  vim.bo[buf].buftype = "acwrite"
  vim.bo[buf].bufhidden = "hide"
  vim.bo[buf].swapfile = false
  pcall(vim.api.nvim_buf_set_name, buf, string.format("agentls://review/%d", rv.n))
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].filetype = "diff"
  vim.bo[buf].modifiable = false
  vim.bo[buf].modified = false
  map(rv, "a", function(r)
    decide(r, true)
  end, "agentls: accept this hunk")
  map(rv, "r", reject, "agentls: reject this hunk, and say why")
  map(rv, "e", edit_hunk, "agentls: edit this hunk, then :w accepts it")
  map(rv, "A", function(r)
    decide_rest(r, true)
  end, "agentls: accept the undecided hunks")
  map(rv, "R", function(r)
    ask_reason(r, decide_rest(r, false))
  end, "agentls: reject the undecided hunks, and say why")
  map(rv, "]c", function(r)
    goto_hunk(r, cursor_hunk(r) + 1)
    render(r)
  end, "agentls: next hunk")
  map(rv, "[c", function(r)
    goto_hunk(r, cursor_hunk(r) - 1)
    render(r)
  end, "agentls: previous hunk")
  map(rv, "<CR>", confirm, "agentls: finish the review (every hunk decided)")
  map(rv, "q", function(r)
    for _, win in ipairs(windows(r)) do
      if #vim.api.nvim_list_wins() > 1 then
        vim.api.nvim_win_close(win, true)
      end
    end
  end, "agentls: close the review; the hunks stay pending")
  local group = vim.api.nvim_create_augroup("agentls_review_" .. rv.n, { clear = true })
  vim.api.nvim_create_autocmd("BufWriteCmd", { group = group, buffer = buf, callback = function()
    vim.bo[buf].modified = false
    notify(":w decides nothing in a review: a / r each hunk (A / R the rest), then <CR>")
  end })
  vim.api.nvim_create_autocmd("BufHidden", { group = group, buffer = buf, callback = function()
    if not rv.done then
      vim.schedule(function()
        if not rv.done and #windows(rv) == 0 then
          notify(resume_hint(rv), vim.log.levels.WARN)
        end
      end)
    end
  end })
  vim.api.nvim_create_autocmd("BufWipeout", { group = group, buffer = buf, callback = function()
    rv.buf = nil -- :AgentPending makes it again
  end })
end

-- show opens rv in a split at the bottom (or focuses its window) and
-- makes it the current review.
show = function(rv)
  M.current = rv
  if not (rv.buf and vim.api.nvim_buf_is_valid(rv.buf)) then
    make_buf(rv)
  end
  local wins = windows(rv)
  if #wins > 0 then
    vim.api.nvim_set_current_win(wins[1])
  else
    rv.prev = vim.api.nvim_get_current_win()
    local lines = vim.api.nvim_buf_line_count(rv.buf)
    local height = math.max(5, math.min(lines, math.floor(vim.o.lines * 0.6)))
    vim.cmd("botright " .. height .. "split")
    local win = vim.api.nvim_get_current_win()
    vim.api.nvim_win_set_buf(win, rv.buf)
    vim.wo[win].cursorline = true
    vim.wo[win].wrap = false
    vim.wo[win].number = false
    vim.wo[win].winfixheight = true
  end
  goto_hunk(rv, rv.cur)
  render(rv)
  vim.cmd("redraw")
  if rv.on_open and not rv.opened then
    rv.opened = true
    rv.on_open(rv)
  end
end

-- open shows items ({ title = string, lines = { unified diff lines },
-- text = the proposed replacement, editable with e; filetype }) for
-- review and returns at once; on_done(result, review) runs when the user
-- finished (result: one boolean per item, true for accepted; the review's
-- reasons[i] and edited[i] hold what the user said and wrote) or the
-- timeout ran out (result nil, review.reason says why). Another review
-- open already: this one waits its turn. opts: { title, timeout (ms),
-- on_open(review), called when it is first shown }.
function M.open(items, opts, on_done)
  opts = opts or {}
  count = count + 1
  local title = opts.title or "review the proposed change"
  if not title:find("^agentls") then
    title = "agentls: " .. title
  end
  local timeout = opts.timeout or 5 * 60 * 1000
  local rv = { n = count, items = items, decisions = {}, reasons = {}, edited = {}, title = title, cur = 1, on_done = on_done, on_open = opts.on_open,
    deadline = os.time() + math.ceil(timeout / 1000) }
  rv.timer = vim.loop.new_timer()
  rv.timer:start(timeout, 0, vim.schedule_wrap(function()
    if not rv.done then
      local reason = string.format("no answer within %d s: the review was closed, nothing applied", math.floor(timeout / 1000))
      notify("agentls: " .. reason .. " (" .. title .. ")", vim.log.levels.WARN)
      finish(rv, nil, reason)
    end
  end))
  table.insert(M.pending, rv)
  if M.current and not M.current.done then
    notify(string.format("another proposed edit waits (%d pending); it opens when this review is finished", #M.pending))
  else
    show(rv)
  end
  return rv
end

-- resume shows the pending review again (:AgentPending).
function M.resume()
  local rv = M.current or M.pending[1]
  if not rv then
    notify("no proposed edit waits for a review")
    return false
  end
  show(rv)
  return true
end

-- cancel_all ends every pending review without applying anything (the
-- server stopped).
function M.cancel_all(reason)
  for _, rv in ipairs(vim.list_extend({}, M.pending)) do
    finish(rv, nil, reason)
  end
end

return M
