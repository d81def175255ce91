-- agentls per-hunk review (DESIGN.md E13): shows the hunks of a proposed
-- edit in a split, with context lines, and lets the user move between them,
-- scroll, accept or reject each, and confirm.
--
-- The review runs while the workspace/applyEdit handler waits (Neovim sends
-- a server request's response when its handler returns), so it reads keys
-- itself with getcharstr() instead of mapping them; the event loop keeps
-- running between keys. Works on Neovim 0.7 and later.

local M = {}

-- The keys, shown on the review's second line.
M.help = "a accept  r reject  A accept rest  R reject rest  n/]c next  p/[c prev  j/k ^D/^U gg/G scroll  <CR> apply  q reject all"

local function termcode(s)
  return vim.api.nvim_replace_termcodes(s, true, false, true)
end

local keys = {
  down = { termcode("<Down>"), "j" },
  up = { termcode("<Up>"), "k" },
  half_down = { termcode("<C-d>") },
  half_up = { termcode("<C-u>") },
  page_down = { termcode("<C-f>"), termcode("<PageDown>"), " " },
  page_up = { termcode("<C-b>"), termcode("<PageUp>") },
  confirm = { "\r", termcode("<CR>"), termcode("<kEnter>") },
  cancel = { "q", "\27", termcode("<Esc>") },
}

local function is(key, names)
  return vim.tbl_contains(names, key)
end

-- default_getkey returns the next typed key, or nil when none is waiting.
local function default_getkey()
  local ok, c = pcall(vim.fn.getcharstr, 0)
  if ok and c ~= "" then
    return c
  end
  return nil
end

local mark = { [true] = "[+] accepted", [false] = "[-] rejected" }

local function header(i, n, item, decision)
  return string.format("%s  hunk %d/%d: %s", mark[decision] or "[ ] undecided", i, n, item.title)
end

-- run shows items ({ title = string, lines = { unified diff lines } }) and
-- returns one boolean per item (true: accepted; undecided ones count as
-- rejected), or nil when the user rejected everything with q or the
-- review timed out. opts: { title, timeout (ms), getkey, on_open(review) }.
function M.run(items, opts)
  opts = opts or {}
  local n = #items
  local decisions = {}
  local title = opts.title or "review the proposed change"
  if not title:find("^agentls") then
    title = "agentls: " .. title
  end
  local lines, starts = { "", M.help, "" }, {}
  for i, item in ipairs(items) do
    starts[i] = #lines + 1
    table.insert(lines, header(i, n, item, nil))
    vim.list_extend(lines, item.lines)
    table.insert(lines, "")
  end

  local buf = vim.api.nvim_create_buf(false, true)
  vim.bo[buf].bufhidden = "wipe"
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].filetype = "diff"
  vim.bo[buf].modifiable = false
  local prev = vim.api.nvim_get_current_win()
  local height = math.max(5, math.min(#lines, math.floor(vim.o.lines * 0.6)))
  vim.cmd("botright " .. height .. "split")
  local win = vim.api.nvim_get_current_win()
  vim.api.nvim_win_set_buf(win, buf)
  vim.wo[win].cursorline = true
  vim.wo[win].wrap = false
  vim.wo[win].number = false

  local cur = 1
  local function set_line(row, text)
    vim.bo[buf].modifiable = true
    vim.api.nvim_buf_set_lines(buf, row - 1, row, false, { text })
    vim.bo[buf].modifiable = false
  end
  local function hunk_at(row)
    local h = 1
    for i, s in ipairs(starts) do
      if row >= s then
        h = i
      end
    end
    return h
  end
  local function render()
    local acc, rej = 0, 0
    for i = 1, n do
      if decisions[i] == true then
        acc = acc + 1
      elseif decisions[i] == false then
        rej = rej + 1
      end
      set_line(starts[i], header(i, n, items[i], decisions[i]))
    end
    set_line(1, string.format("%s — hunk %d/%d, %d accepted, %d rejected, %d undecided", title, cur, n, acc, rej, n - acc - rej))
  end
  local function goto_row(row)
    row = math.max(1, math.min(row, vim.api.nvim_buf_line_count(buf)))
    vim.api.nvim_win_set_cursor(win, { row, 0 })
    cur = hunk_at(row)
  end
  local function goto_hunk(i)
    cur = math.max(1, math.min(i, n))
    vim.api.nvim_win_set_cursor(win, { starts[cur], 0 })
  end
  local function next_undecided()
    for step = 1, n do
      local i = (cur - 1 + step) % n + 1
      if decisions[i] == nil then
        return goto_hunk(i)
      end
    end
  end
  local function decide(i, v)
    decisions[i] = v
  end

  local review = { buf = buf, win = win, items = items, decisions = decisions }
  M.current = review
  goto_hunk(1)
  render()
  vim.cmd("redraw")
  if opts.on_open then
    opts.on_open(review)
  end

  local getkey = opts.getkey or default_getkey
  local deadline = vim.loop.now() + (opts.timeout or 5 * 60 * 1000)
  local result, pending = nil, nil
  while true do
    local key = getkey()
    if key == nil then
      if vim.loop.now() > deadline or not vim.api.nvim_win_is_valid(win) then
        break -- no answer in time, or the window was closed: reject all
      end
      vim.wait(20)
    else
      local page = math.max(1, vim.api.nvim_win_get_height(win) - 2)
      local row = vim.api.nvim_win_get_cursor(win)[1]
      if pending == "g" then
        pending = nil
        if key == "g" then
          goto_row(1)
        end
      elseif pending == "]" or pending == "[" then
        local dir = pending == "]" and 1 or -1
        pending = nil
        if key == "c" then
          goto_hunk(cur + dir)
        end
      elseif key == "a" then
        decide(cur, true)
        next_undecided()
      elseif key == "r" then
        decide(cur, false)
        next_undecided()
      elseif key == "A" or key == "R" then
        for i = 1, n do
          if decisions[i] == nil then
            decide(i, key == "A")
          end
        end
      elseif key == "n" then
        goto_hunk(cur + 1)
      elseif key == "p" then
        goto_hunk(cur - 1)
      elseif key == "g" or key == "]" or key == "[" then
        pending = key
      elseif key == "G" then
        goto_row(vim.api.nvim_buf_line_count(buf))
      elseif is(key, keys.down) then
        goto_row(row + 1)
      elseif is(key, keys.up) then
        goto_row(row - 1)
      elseif is(key, keys.half_down) then
        goto_row(row + math.floor(page / 2))
      elseif is(key, keys.half_up) then
        goto_row(row - math.floor(page / 2))
      elseif is(key, keys.page_down) then
        goto_row(row + page)
      elseif is(key, keys.page_up) then
        goto_row(row - page)
      elseif is(key, keys.confirm) then
        result = {}
        for i = 1, n do
          result[i] = decisions[i] == true
        end
        break
      elseif is(key, keys.cancel) then
        break
      end
      render()
      vim.cmd("redraw")
    end
  end
  review.lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
  review.result = result
  M.current = nil
  if vim.api.nvim_win_is_valid(win) then
    vim.api.nvim_win_close(win, true)
  end
  if vim.api.nvim_win_is_valid(prev) then
    vim.api.nvim_set_current_win(prev)
  end
  return result, review
end

return M
