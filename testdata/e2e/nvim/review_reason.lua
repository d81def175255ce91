-- Headless Neovim end-to-end test of issue 28's review items: r rejects
-- a hunk and asks why (the model reads the reason with that hunk), e
-- opens a hunk's proposed text for editing and :w accepts it with the
-- user's text (it lands, and the model is told the user changed its
-- proposal). Run by cmd/agentls/e2e_nvim_review_test.go
-- (TestNeovimReview_Issue28) as
--
--   nvim --headless --clean -u testdata/e2e/nvim/review_reason.lua
--
-- in a copy of testdata/e2e/workspace, with a scripted model: edit_file
-- main.go with two hunks. Environment: AGENTLS_E2E_BIN,
-- AGENTLS_E2E_PLUGIN, AGENTLS_E2E_RESULT, AGENTLS_E2E_REASON (what the
-- user answers to "why reject?"). Keys are typed with nvim_feedkeys.

local plugin = os.getenv("AGENTLS_E2E_PLUGIN")
if not plugin or plugin == "" then
  io.stderr:write("test: AGENTLS_E2E_PLUGIN is not set\n")
  vim.cmd("cquit 2")
end
local t = dofile(plugin .. "/test/harness.lua").new("AGENTLS_E2E_RESULT")
local getenv, check, wait, keys, read_file = t.getenv, t.check, t.wait, t.keys, t.read_file

vim.opt.runtimepath:prepend(plugin)
vim.opt.swapfile = false
vim.opt.shortmess:append("F")

local agentls = require("agentls")
local review = require("agentls.review")

vim.ui.select = function(items, _, on_choice)
  on_choice(vim.tbl_contains(items, "Approve") and "Approve" or items[1])
end
local asked = {}
vim.ui.input = function(opts, on_confirm)
  table.insert(asked, opts.prompt)
  on_confirm(getenv("AGENTLS_E2E_REASON"))
end
vim.notify = function(msg, level)
  io.stdout:write(string.format("[notify %s] %s\n", level or "", msg))
end

local function has(hay, needle)
  return (hay or ""):find(needle, 1, true) ~= nil
end

local function in_review()
  return review.current ~= nil and vim.api.nvim_get_current_buf() == review.current.buf
end

local function run()
  agentls.setup({ cmd = { getenv("AGENTLS_E2E_BIN"), "serve" }, prompt_timeout = 40000 })
  vim.cmd("edit main.go")
  local main_path = vim.api.nvim_buf_get_name(0)
  if not check(wait(15000, function()
    return agentls.initialized
  end), "server initialized") then
    return
  end
  agentls.last_result = nil
  vim.cmd("AgentExecute Greet Earth warmly")
  check(wait(40000, in_review), "the two-hunk review opened and has the cursor")
  local rv = review.current or {}
  check(#(rv.items or {}) == 2, "one review item per hunk (2)", rv.items)

  -- r on hunk 2: rejected, and the user says why.
  vim.api.nvim_win_set_cursor(0, { rv.starts[2], 0 })
  keys("r")
  check(rv.decisions[2] == false and rv.reasons[2] == getenv("AGENTLS_E2E_REASON"), "r rejected hunk 2 with the user's reason", { rv.decisions, rv.reasons, asked })

  -- e on hunk 1: its proposed text in a buffer; the user changes it and :w accepts it.
  vim.api.nvim_win_set_cursor(0, { rv.starts[1], 0 })
  keys("e")
  local lines = vim.api.nvim_buf_get_lines(0, 0, -1, false)
  check(vim.deep_equal(lines, { '\treturn "Hi, " + name' }), "e opened hunk 1's proposed text", lines)
  keys(":s/Hi, /Hey there, /<CR>:w<CR>")
  check(rv.decisions[1] == true and rv.edited[1] == '\treturn "Hey there, " + name\n', ":w accepted hunk 1 with the user's text", { rv.decisions, rv.edited })
  check(in_review(), "back in the review after :w")
  keys("<CR>")
  check(wait(30000, function()
    return agentls.last_result ~= nil
  end), "the run finished")
  check(wait(5000, function()
    local s = read_file(main_path) or ""
    return has(s, '"Hey there, "') and has(s, 'greet("world")')
  end), "the user's text landed on disk, hunk 2 did not", read_file(main_path))
  local e = ((agentls.last_result or {}).result or {}).edits or {}
  check(e.applied == 1 and e.rejected == 1 and (e.stale or 0) == 0, "1 applied (edited), 1 rejected, none stale", e)
end

vim.defer_fn(coroutine.wrap(function()
  local ok, err = xpcall(run, debug.traceback)
  if not ok then
    check(false, "no Lua error", err)
  end
  t.finish({})
end), 0)

vim.defer_fn(function()
  check(false, "nvim e2e (review reasons) timed out after 85 s")
  t.finish({})
end, 85000)
