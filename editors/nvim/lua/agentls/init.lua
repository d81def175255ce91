-- agentls for Neovim (0.7+): starts `agentls serve` with the built-in LSP
-- client for the files under the workspace root and adds the :Agent…
-- commands (`:help agentls`). This module is setup() and the Lua API; the
-- rest has one concern a file:
--
--   client.lua           starting the server, capabilities, attaching buffers
--   handlers/            what the server sends, one method a file
--   workspace_edit.lua   hunks, staleness and the accepted part of an edit
--   review.lua           the per-hunk review buffer, not modal (DESIGN.md E13)
--   reply_later.lua      answering workspace/applyEdit when the review ends
--   execute_command.lua  sending a command and recording its answer
--   results.lua          showing results, reverts, errors; the quickfix list
--   runs.lua             the live run view, statusline, saved plans (E16)
--   sessions.lua         the sessions picker (:AgentSessions)
--   usercommands.lua     the Ex commands (also defined by plugin/agentls.lua)
--   ui.lua               notifications and questions that wait for an answer
--   health.lua           :checkhealth agentls

local M = {}

local client = require("agentls.client")
local execute_command = require("agentls.execute_command")
local runs = require("agentls.runs")
local ui = require("agentls.ui")

local defaults = {
  cmd = { "agentls", "serve" },
  -- Extra environment for the server, e.g. { OPENAI_BASE_URL = "...", AGENTLS_MODEL = "..." }.
  cmd_env = nil,
  -- Workspace root; nil means the current directory when the server starts.
  root_dir = nil,
  -- Only attach buffers of these filetypes; nil means every file under root_dir.
  filetypes = nil,
  -- Review proposed edits hunk by hunk before applying them.
  confirm_edits = true,
  -- Called when a review is first shown: function(review) with review.buf,
  -- review.items and review.decisions (tests feed keys from here).
  on_review = nil,
  -- How long (ms) a prompt or a review may stay open; the server denies
  -- after its approval timeout (5 minutes by default) anyway.
  prompt_timeout = 5 * 60 * 1000,
  -- Called once the server answered initialize: function(client, initialize_result).
  on_init = nil,
  -- Called after every command: function(command, result, err).
  on_result = nil,
  -- The live run view (runs.lua): { open = true, height = 12, plans_dir = ... }.
  runs = nil,
}

M.config = vim.deepcopy(defaults)
M.did_setup = false -- setup() was called: the commands run, buffers attach
M.client_id = nil
M.initialized = false
M.last_result = nil -- { command = ..., result = ..., err = ... } of the last command
M.last_run = nil -- { command = ..., arg = {uri, range}, result = ... } of the last plan, review or execute
M.last_preview = nil -- lines of the last review shown for a proposed edit
M.last_review = nil -- the last review: { items, lines, result = decisions or nil }

-- root_dir is the workspace root (the root_dir option, else the current directory).
M.root_dir = client.root_dir
-- client returns the running client, or nil.
M.client = client.get
-- start starts the server unless it runs; it returns the client's ID.
M.start = client.start
-- attach connects a file buffer under the root to the server.
M.attach = client.attach

-- run runs plan, review or execute ("plan"/"agentls.plan" both work) on the
-- current buffer. opts: { range = LSP range, instruction = string, bufnr = n,
-- images = { file URI of a picture in the workspace, … } }.
function M.run(command, opts, on_done)
  opts = opts or {}
  if not command:find("^agentls%.") then
    command = "agentls." .. command
  end
  local bufnr = opts.bufnr or vim.api.nvim_get_current_buf()
  local _, missing = require("agentls.health").binary(M.config.cmd)
  if missing then
    ui.notify(missing, vim.log.levels.ERROR)
    return
  end
  if not M.attach(bufnr) then
    ui.notify("this buffer is not a file under " .. M.root_dir(), vim.log.levels.ERROR)
    return
  end
  local arg = { uri = vim.uri_from_bufnr(bufnr), range = opts.range, instruction = opts.instruction, images = opts.images }
  execute_command.execute(command, arg, bufnr, on_done)
end

-- cancel stops every running agentls session.
function M.cancel(on_done)
  execute_command.execute("agentls.cancel", nil, nil, on_done)
end

-- continue_last runs command (the last run's own when nil) in the last
-- run's session, with instruction (asked for when nil; "" for an execute
-- carries out the plan above).
local function continue_last(command, instruction, on_done)
  local last = M.last_run
  if not last or not last.result or not last.result.sessionId then
    ui.notify("no run to continue yet; run :AgentPlan first", vim.log.levels.WARN)
    return
  end
  local arg = { uri = last.arg.uri, range = last.arg.range, sessionId = last.result.sessionId, instruction = instruction }
  local bufnr = vim.uri_to_bufnr(last.arg.uri)
  M.attach(bufnr)
  execute_command.execute(command or last.command, arg, bufnr, on_done)
end

-- execute_plan carries out the last plan: an execute in its session
-- without an instruction (A16).
function M.execute_plan(on_done)
  continue_last("agentls.execute", "", on_done)
end

-- follow_up continues the last run's session with its command and a new
-- instruction (asked for when nil).
function M.follow_up(instruction, on_done)
  continue_last(nil, instruction, on_done)
end

-- revert restores the files a run changed: run_id ("SESSION-N"), or nil
-- for the last run that changed files.
function M.revert(run_id, on_done)
  execute_command.execute("agentls.revert", run_id and { runId = run_id } or nil, nil, on_done)
end

-- statusline is the running run and its step, "" when none: for 'statusline'
-- ("%{v:lua.require'agentls'.statusline()}") or a statusline plugin.
function M.statusline()
  return runs.statusline()
end

-- setup takes the options (`:help agentls-options`), defines the commands
-- and attaches every loaded file buffer under the root, and those opened
-- later; the server starts with the first.
function M.setup(opts)
  M.config = vim.tbl_deep_extend("force", vim.deepcopy(defaults), opts or {})
  M.did_setup = true
  runs.setup(M.config.runs)
  require("agentls.usercommands").define()

  local group = vim.api.nvim_create_augroup("agentls", { clear = true })
  vim.api.nvim_create_autocmd({ "BufEnter", "FileType" }, {
    group = group,
    callback = function(a)
      M.attach(a.buf)
    end,
  })
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(b) then
      M.attach(b)
    end
  end
end

return M
