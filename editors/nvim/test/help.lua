-- Headless Neovim test of the plugin's help and its plugin/ file (issue
-- 23), run by cmd/agentls/e2e_nvim_help_test.go (TestNeovimHelp) as
--
--   nvim --headless --clean -u editors/nvim/test/help.lua
--
-- on a copy of editors/nvim (:helptags writes doc/tags). It checks that
-- :helptags accepts doc/agentls.txt, that :help agentls and the main
-- sections open it, that every :Agent… command has its help (a command
-- added without it fails here), that every |link| in the file names
-- a tag, and that plugin/agentls.lua defines the same commands as
-- setup(), which ask for setup() until it ran. With AGENTLS_TEST_LOADED=1,
-- g:loaded_agentls is set first: then plugin/agentls.lua defines nothing
-- and setup() defines every command.
-- Environment: AGENTLS_TEST_PLUGIN (the copy), AGENTLS_TEST_RESULT (a JSON
-- file it writes: ok, checks, failures). Exit code 0 when every check passed.

local plugin = os.getenv("AGENTLS_TEST_PLUGIN")
if not plugin or plugin == "" then
  io.stderr:write("test: AGENTLS_TEST_PLUGIN is not set\n")
  vim.cmd("cquit 2")
end
local t = dofile(plugin .. "/test/harness.lua").new("AGENTLS_TEST_RESULT")
local check = t.check

local guarded = os.getenv("AGENTLS_TEST_LOADED") == "1"
vim.opt.runtimepath:prepend(plugin)
vim.opt.swapfile = false
if guarded then
  vim.g.loaded_agentls = 1
end

local notes = {}

vim.notify = function(msg, level)
  table.insert(notes, { msg = msg, level = level })
end

-- agent_commands lists the user commands named Agent…, sorted.
local function agent_commands()
  local names = {}
  for name in pairs(vim.api.nvim_get_commands({})) do
    if name:find("^Agent") then
      table.insert(names, name)
    end
  end
  table.sort(names)
  return names
end

-- help opens :help subject; it returns the help file's name and the line
-- the cursor is on, or nil and the error.
local function help(subject)
  local ok, err = pcall(vim.cmd, "help " .. subject)
  if not ok then
    return nil, tostring(err)
  end
  local name = vim.fn.fnamemodify(vim.api.nvim_buf_get_name(0), ":t")
  local line = vim.api.nvim_get_current_line()
  vim.cmd("helpclose")
  return name, line
end

local function helps(subject, tag)
  local file, line = help(subject)
  check(file == "agentls.txt" and line and line:find("*" .. tag .. "*", 1, true) ~= nil,
    ":help " .. subject .. " opens agentls.txt at *" .. tag .. "*", { file = file, line = line })
end

local function run()
  local v = vim.version()
  check(true, string.format("running on Neovim %d.%d.%d", v.major, v.minor, v.patch))
  -- The help ftplugin of Neovim 0.12 starts the vimdoc tree-sitter parser,
  -- which a Neovim unpacked without its parsers (.ci/nvim-current.sh) lacks;
  -- what is tested here is the help file, not Neovim's help highlighting.
  vim.cmd("filetype plugin off")
  local doc = plugin .. "/doc"
  local ok, err = pcall(vim.cmd, "helptags " .. vim.fn.fnameescape(doc))
  check(ok, ":helptags accepts doc/agentls.txt (no duplicate tag)", err)
  check(vim.fn.filereadable(doc .. "/tags") == 1, ":helptags wrote doc/tags")

  helps("agentls", "agentls")
  for _, tag in ipairs({ "agentls-setup", "agentls-options", "agentls-commands", "agentls-review-keys",
    "agentls-run-buffer", "agentls-statusline", "agentls-health", "agentls-lua", "g:loaded_agentls" }) do
    helps(tag, tag)
  end

  -- plugin/agentls.lua ran after this file: the commands exist before setup().
  local before = agent_commands()
  if guarded then
    check(#before == 0, "with g:loaded_agentls set, plugin/agentls.lua defines no command", before)
  else
    check(#before > 0, "plugin/agentls.lua defines the commands", before)
    notes = {}
    vim.cmd("AgentPlan anything")
    local msg = notes[1] and notes[1].msg or ""
    check(msg:find("setup()", 1, true) ~= nil, "before setup() a command asks for it", notes)
    check(package.loaded["agentls.client"] == nil, "before setup() nothing but the commands is loaded",
      vim.tbl_filter(function(k)
        return k:find("^agentls")
      end, vim.tbl_keys(package.loaded)))
  end
  require("agentls").setup({ cmd = { "agentls-not-installed-help-test", "serve" } })
  local after = agent_commands()
  check(#after >= 9, "setup() defines the commands", after)
  if not guarded then
    check(vim.deep_equal(before, after), "plugin/agentls.lua and setup() define the same commands", { before = before, after = after })
  end

  for _, name in ipairs(after) do
    helps(":" .. name, ":" .. name)
  end

  -- Every |link| in the help file names a tag exactly (ours or Neovim's).
  local tags = {}
  for _, file in ipairs(vim.fn.globpath(vim.o.runtimepath, "doc/tags", false, true)) do
    for _, line in ipairs(vim.fn.readfile(file)) do
      tags[line:match("^[^\t]+")] = true
    end
  end
  local seen = {}
  for _, line in ipairs(vim.fn.readfile(doc .. "/agentls.txt")) do
    for link in line:gmatch("|([^|%s]+)|") do
      if not seen[link] then
        seen[link] = true
        check(tags[link], "the link |" .. link .. "| names a tag")
      end
    end
  end
end

local function finish()
  t.finish()
end

-- After startup: plugin/agentls.lua is sourced once this file has run.
vim.defer_fn(function()
  local ok, err = xpcall(run, debug.traceback)
  if not ok then
    check(false, "no Lua error", err)
  end
  finish()
end, 0)
