-- agentls for Neovim (0.7+): starts `agentls serve` with the built-in LSP
-- client and adds :AgentPlan, :AgentReview, :AgentExecute and :AgentCancel.
--
-- What the plugin adds on top of the built-in client (DESIGN.md E13):
--   * window/showMessageRequest is answered with vim.ui.select, never with the
--     blocking inputlist of the default handler;
--   * workspace/applyEdit shows the proposed change as a unified diff and asks
--     Apply/Reject before touching the buffer, and refuses stale edits;
--   * agentls/saveDocuments writes the buffers the server names;
--   * results are shown with vim.notify, review findings go to the quickfix list;
--   * agentls/runEvent feeds the live run view (runs.lua: :AgentRuns, :AgentPlans,
--     statusline()); :checkhealth agentls is health.lua.

local M = {}
local runs = require("agentls.runs")

local defaults = {
  cmd = { "agentls", "serve" },
  -- Extra environment for the server, e.g. { OPENAI_BASE_URL = "...", AGENTLS_MODEL = "..." }.
  cmd_env = nil,
  -- Workspace root; nil means the current directory when the server starts.
  root_dir = nil,
  -- Only attach buffers of these filetypes; nil means every file under root_dir.
  filetypes = nil,
  -- Show proposed edits as a diff and ask Apply/Reject before applying them.
  confirm_edits = true,
  -- How long (ms) a prompt may stay open; the server denies after 5 minutes anyway.
  prompt_timeout = 5 * 60 * 1000,
  -- Called once the server answered initialize: function(client, initialize_result).
  on_init = nil,
  -- Called after every command: function(command, result, err).
  on_result = nil,
  -- The live run view (runs.lua): { open = true, height = 12, plans_dir = ... }.
  runs = nil,
}

M.config = vim.deepcopy(defaults)
M.client_id = nil
M.initialized = false
M.last_result = nil -- { command = ..., result = ..., err = ... } of the last command
M.last_preview = nil -- lines of the last diff shown for a proposed edit

local function notify(msg, level)
  vim.notify(msg, level or vim.log.levels.INFO, { title = "agentls" })
end

local function realpath(p)
  return vim.loop.fs_realpath(p) or p
end

-- ask waits for an asynchronous vim.ui.select/vim.ui.input while the event
-- loop keeps running, so a server request can be answered with the choice.
-- Neovim 0.7 sends a server request's response when its handler returns.
local function ask(prompt_fn)
  local done, answer = false, nil
  prompt_fn(function(v)
    answer, done = v, true
  end)
  vim.wait(M.config.prompt_timeout, function()
    return done
  end, 50)
  return answer
end

local function select(items, prompt)
  return ask(function(cb)
    vim.ui.select(items, { prompt = prompt }, cb)
  end)
end

---------------------------------------------------------------------------
-- Handlers for server-to-client requests

local function show_message_request(_, params)
  local actions = params and params.actions or {}
  if #actions == 0 then
    notify(params.message)
    return vim.NIL
  end
  local titles = vim.tbl_map(function(a)
    return a.title
  end, actions)
  local choice = select(titles, "agentls: " .. params.message)
  for _, a in ipairs(actions) do
    if a.title == choice then
      return a
    end
  end
  return vim.NIL -- no answer means deny
end

-- edit_text answers agentls/editText (human_confirm "modify"): the user
-- edits the proposed text; cancelling answers null, which the server
-- treats as deny.
local function edit_text(_, params)
  local text = ask(function(cb)
    vim.ui.input({ prompt = "agentls: " .. (params.prompt or "edit") .. " ", default = params.text or "" }, cb)
  end)
  if text == nil then
    return { text = vim.NIL }
  end
  return { text = text }
end

-- edited_lines returns a buffer's lines before and after applying edits.
local function edited_lines(uri, edits, encoding)
  local bufnr = vim.uri_to_bufnr(uri)
  vim.fn.bufload(bufnr)
  local old = vim.api.nvim_buf_get_lines(bufnr, 0, -1, false)
  local scratch = vim.api.nvim_create_buf(false, true)
  vim.api.nvim_buf_set_lines(scratch, 0, -1, false, old)
  vim.lsp.util.apply_text_edits(edits, scratch, encoding)
  local new = vim.api.nvim_buf_get_lines(scratch, 0, -1, false)
  vim.api.nvim_buf_delete(scratch, { force = true })
  return old, new
end

-- diff_lines renders a WorkspaceEdit as a unified diff.
local function diff_lines(edit, encoding)
  local out = {}
  local function add(uri, edits)
    local old, new = edited_lines(uri, edits, encoding)
    local name = vim.fn.fnamemodify(vim.uri_to_fname(uri), ":.")
    vim.list_extend(out, { "--- a/" .. name, "+++ b/" .. name })
    local d = vim.diff(table.concat(old, "\n") .. "\n", table.concat(new, "\n") .. "\n", { result_type = "unified" })
    vim.list_extend(out, vim.split(d, "\n", { plain = true, trimempty = true }))
  end
  for _, change in ipairs(edit.documentChanges or {}) do
    if change.kind == "create" then
      table.insert(out, "create " .. vim.uri_to_fname(change.uri))
    elseif change.kind == "rename" then
      table.insert(out, "rename " .. vim.uri_to_fname(change.oldUri) .. " -> " .. vim.uri_to_fname(change.newUri))
    elseif change.kind == "delete" then
      table.insert(out, "delete " .. vim.uri_to_fname(change.uri))
    else
      add(change.textDocument.uri, change.edits)
    end
  end
  for uri, edits in pairs(edit.changes or {}) do
    add(uri, edits)
  end
  return out
end

-- show_preview opens the diff in a split and returns a function closing it.
local function show_preview(lines)
  local buf = vim.api.nvim_create_buf(false, true)
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].filetype = "diff"
  vim.bo[buf].modifiable = false
  vim.bo[buf].bufhidden = "wipe"
  local prev = vim.api.nvim_get_current_win()
  local height = math.max(3, math.min(#lines, math.floor(vim.o.lines / 2)))
  vim.cmd("botright " .. height .. "split")
  local win = vim.api.nvim_get_current_win()
  vim.api.nvim_win_set_buf(win, buf)
  vim.cmd("redraw")
  return function()
    if vim.api.nvim_win_is_valid(win) then
      vim.api.nvim_win_close(win, true)
    end
    if vim.api.nvim_win_is_valid(prev) then
      vim.api.nvim_set_current_win(prev)
    end
  end
end

-- stale_reason: Neovim 0.7 silently skips an edit for an older version and
-- still reports success, so the plugin checks versions itself (DESIGN.md E9).
local function stale_reason(edit)
  for _, change in ipairs(edit.documentChanges or {}) do
    local td = change.textDocument
    if td and td.version then
      local bufnr = vim.uri_to_bufnr(td.uri)
      local current = vim.lsp.util.buf_versions[bufnr]
      if current and current ~= td.version then
        return string.format("stale: edit is for version %d, %s is at %d", td.version, td.uri, current)
      end
    end
  end
end

local function apply_edit(_, params, ctx)
  local client = vim.lsp.get_client_by_id(ctx.client_id)
  local edit = params and params.edit
  if not client or not edit then
    return { applied = false, failureReason = "no edit" }
  end
  local stale = stale_reason(edit)
  if stale then
    return { applied = false, failureReason = stale }
  end
  if M.config.confirm_edits then
    local ok, lines = pcall(diff_lines, edit, client.offset_encoding)
    if not ok then
      return { applied = false, failureReason = "cannot preview edit: " .. tostring(lines) }
    end
    M.last_preview = lines
    local close = show_preview(lines)
    local choice = select({ "Apply", "Reject" }, params.label or "agentls: apply this edit?")
    close()
    if choice ~= "Apply" then
      return { applied = false, failureReason = "rejected by the user" }
    end
    -- The buffer may have changed while the question was open.
    stale = stale_reason(edit)
    if stale then
      return { applied = false, failureReason = stale }
    end
  end
  local ok, err = pcall(vim.lsp.util.apply_workspace_edit, edit, client.offset_encoding)
  if not ok then
    return { applied = false, failureReason = tostring(err) }
  end
  return { applied = true }
end

local function loaded_buffer(fname)
  fname = realpath(fname)
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(b) and realpath(vim.api.nvim_buf_get_name(b)) == fname then
      return b
    end
  end
end

-- save_documents answers agentls/saveDocuments: write each loaded buffer.
local function save_documents(_, params)
  local saved = {}
  for _, uri in ipairs(params and params.uris or {}) do
    local bufnr = loaded_buffer(vim.uri_to_fname(uri))
    if bufnr then
      local ok, err = pcall(vim.api.nvim_buf_call, bufnr, function()
        vim.cmd("silent update")
      end)
      if ok then
        table.insert(saved, uri)
      else
        notify("cannot save " .. uri .. ": " .. tostring(err), vim.log.levels.WARN)
      end
    end
  end
  return { saved = saved }
end

local function progress(err, params, ctx, config)
  vim.lsp.handlers["$/progress"](err, params, ctx, config)
  local v = params and params.value
  if type(v) == "table" and (v.kind == "begin" or v.kind == "report") then
    local parts = {}
    for _, s in ipairs({ v.title or "", v.message or "" }) do
      if s ~= "" then
        table.insert(parts, s)
      end
    end
    if #parts > 0 then
      vim.api.nvim_echo({ { "agentls: " .. table.concat(parts, ": ") } }, false, {})
    end
  end
end

---------------------------------------------------------------------------
-- Results

local severity_type = { error = "E", warning = "W", info = "I", information = "I", hint = "N" }

local function step_text(step)
  if type(step) ~= "table" then
    return tostring(step)
  end
  if step.title or step.description then
    return step.title or step.description
  end
  if step.tool and step.exitCode ~= nil then
    return string.format("turn %s: %s", step.turn or "?", runs.step_text(step))
  end
  if step.tool then
    local status = step.ok == false and "failed" or "ok"
    return string.format("turn %s: %s %s%s", step.turn or "?", step.tool, status, step.code and (" (" .. step.code .. ")") or "")
  end
  return vim.json.encode(step)
end

local function show_result(command, result)
  local name = command:gsub("^agentls%.", "")
  local lines = { string.format("%s %s: %s", name, result.status or "?", result.summary or "") }
  for i, step in ipairs(result.steps or {}) do
    table.insert(lines, string.format("  %d. %s", i, step_text(step)))
  end
  local e = result.edits
  if e and (e.proposed or 0) > 0 then
    table.insert(lines, string.format("edits: %d proposed, %d applied, %d rejected", e.proposed, e.applied or 0, e.rejected or 0))
  end
  local findings = result.findings or {}
  if #findings > 0 then
    local root = M.root_dir()
    local items = {}
    for _, f in ipairs(findings) do
      local path = f.path or ""
      if path:sub(1, 1) ~= "/" then
        path = root .. "/" .. path
      end
      table.insert(items, {
        filename = path,
        lnum = f.line or 1,
        end_lnum = f.endLine,
        text = f.message or "",
        type = severity_type[f.severity or ""] or "W",
      })
    end
    vim.fn.setqflist({}, " ", { title = "agentls " .. name, items = items })
    table.insert(lines, string.format("%d finding(s) in the quickfix list (:copen)", #findings))
  end
  local level = result.status == "failed" and vim.log.levels.WARN or vim.log.levels.INFO
  notify(table.concat(lines, "\n"), level)
end

local function show_error(command, err)
  local reason = type(err.data) == "table" and err.data.reason
  notify(string.format("%s failed: %s%s", command, err.message or "error", reason and (" (" .. reason .. ")") or ""), vim.log.levels.ERROR)
end

---------------------------------------------------------------------------
-- Client

function M.root_dir()
  return realpath(M.config.root_dir or vim.loop.cwd())
end

function M.client()
  return M.client_id and vim.lsp.get_client_by_id(M.client_id) or nil
end

local function capabilities()
  local caps = vim.lsp.protocol.make_client_capabilities()
  caps.workspace.applyEdit = true
  caps.workspace.workspaceEdit = caps.workspace.workspaceEdit or {}
  caps.workspace.workspaceEdit.documentChanges = true
  caps.workspace.workspaceEdit.changeAnnotationSupport = { groupsOnLabel = false }
  caps.window.workDoneProgress = true
  caps.experimental = { agentls = { saveDocuments = true, editText = true, runEvents = true } }
  return caps
end

-- execute sends one agentls command; arg is {uri, range?, instruction?}.
local function execute(command, arg, bufnr, on_done)
  local client = M.client()
  if not client then
    notify("the agentls server is not running", vim.log.levels.ERROR)
    return
  end
  local run -- the live view (runs.lua), made when the request is sent
  local function finish(err, result)
    M.last_result = { command = command, result = result, err = err }
    if run then
      M.last_result.plan = runs.finish(run, err, result)
    end
    if err then
      show_error(command, err)
    elseif command == "agentls.cancel" then
      notify(string.format("cancelled %d run(s)", #((result or {}).cancelled or {})))
    elseif result then
      show_result(command, result)
    end
    if on_done then
      on_done(err, result)
    end
    if M.config.on_result then
      M.config.on_result(command, result, err)
    end
  end
  local function send()
    local params = { command = command, arguments = arg and { arg } or nil }
    if arg and command ~= "agentls.cancel" then
      run = runs.begin(command, arg)
    end
    client.request("workspace/executeCommand", params, function(err, result)
      finish(err, result)
    end, bufnr)
  end
  local needs_instruction = command == "agentls.plan" or command == "agentls.execute"
  if arg and needs_instruction and (arg.instruction == nil or arg.instruction == "") then
    vim.ui.input({ prompt = command:gsub("^agentls%.", "agentls ") .. ": " }, function(input)
      if input and input ~= "" then
        arg.instruction = input
        send()
      end
    end)
  else
    send()
  end
end

-- Code actions carry {uri, range} only: ask for the instruction, then run.
local function code_action_command(command, ctx)
  local arg = vim.deepcopy((command.arguments or {})[1] or {})
  execute(command.command, arg, ctx and ctx.bufnr)
end

function M.start()
  local client = M.client()
  if client and not client.is_stopped() then
    return M.client_id
  end
  local cfg = M.config
  M.initialized = false
  M.client_id = vim.lsp.start_client({
    name = "agentls",
    cmd = cfg.cmd,
    cmd_env = cfg.cmd_env,
    root_dir = M.root_dir(),
    capabilities = capabilities(),
    flags = { debounce_text_changes = 0 },
    handlers = {
      ["window/showMessageRequest"] = show_message_request,
      ["workspace/applyEdit"] = apply_edit,
      ["agentls/saveDocuments"] = save_documents,
      ["agentls/editText"] = edit_text,
      ["$/progress"] = progress,
      ["agentls/runEvent"] = runs.event,
    },
    commands = {
      ["agentls.plan"] = code_action_command,
      ["agentls.review"] = code_action_command,
      ["agentls.execute"] = code_action_command,
    },
    on_init = function(c, result)
      M.initialized = true
      if cfg.on_init then
        cfg.on_init(c, result)
      end
    end,
    on_exit = function(code, signal)
      M.client_id, M.initialized = nil, false
      if code ~= 0 then
        vim.schedule(function()
          notify(string.format("server exited (code %s, signal %s); see :lua vim.cmd('edit '..vim.lsp.get_log_path())", code, signal), vim.log.levels.WARN)
        end)
      end
    end,
  })
  return M.client_id
end

-- attach connects a file buffer under the root to the server.
function M.attach(bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  if not vim.api.nvim_buf_is_valid(bufnr) or vim.bo[bufnr].buftype ~= "" then
    return false
  end
  local name = vim.api.nvim_buf_get_name(bufnr)
  if name == "" or not vim.startswith(realpath(name), M.root_dir() .. "/") then
    return false
  end
  local fts = M.config.filetypes
  if fts and not vim.tbl_contains(fts, vim.bo[bufnr].filetype) then
    return false
  end
  local id = M.start()
  if not id then
    return false
  end
  -- buf_attach_client returns nothing when the buffer is attached already.
  vim.lsp.buf_attach_client(bufnr, id)
  return vim.lsp.buf_is_attached(bufnr, id)
end

---------------------------------------------------------------------------
-- Commands

-- line_range turns an Ex range into an LSP range (UTF-16 columns).
local function line_range(bufnr, line1, line2)
  local last = vim.api.nvim_buf_get_lines(bufnr, line2 - 1, line2, false)[1] or ""
  local _, utf16 = vim.str_utfindex(last)
  return { start = { line = line1 - 1, character = 0 }, ["end"] = { line = line2 - 1, character = utf16 } }
end

-- run runs plan, review or execute ("plan"/"agentls.plan" both work) on the
-- current buffer. opts: { range = LSP range, instruction = string, bufnr = n }.
function M.run(command, opts, on_done)
  opts = opts or {}
  if not command:find("^agentls%.") then
    command = "agentls." .. command
  end
  local bufnr = opts.bufnr or vim.api.nvim_get_current_buf()
  local _, missing = require("agentls.health").binary(M.config.cmd)
  if missing then
    notify(missing, vim.log.levels.ERROR)
    return
  end
  if not M.attach(bufnr) then
    notify("this buffer is not a file under " .. M.root_dir(), vim.log.levels.ERROR)
    return
  end
  local arg = { uri = vim.uri_from_bufnr(bufnr), range = opts.range, instruction = opts.instruction }
  execute(command, arg, bufnr, on_done)
end

-- cancel stops every running agentls session.
function M.cancel(on_done)
  execute("agentls.cancel", nil, nil, on_done)
end

local function define(name, command, desc)
  vim.api.nvim_create_user_command(name, function(o)
    local range = o.range > 0 and line_range(0, o.line1, o.line2) or nil
    M.run(command, { range = range, instruction = o.args ~= "" and o.args or nil })
  end, { range = true, nargs = "*", desc = desc })
end

-- statusline is the running run and its step, "" when none: for 'statusline'
-- ("%{v:lua.require'agentls'.statusline()}") or a statusline plugin.
function M.statusline()
  return runs.statusline()
end

function M.setup(opts)
  M.config = vim.tbl_deep_extend("force", vim.deepcopy(defaults), opts or {})
  runs.setup(M.config.runs)
  define("AgentPlan", "agentls.plan", "agentls: plan a change (read-only)")
  define("AgentReview", "agentls.review", "agentls: review the range or file")
  define("AgentExecute", "agentls.execute", "agentls: make a change, edits shown for approval")
  vim.api.nvim_create_user_command("AgentCancel", function()
    M.cancel()
  end, { desc = "agentls: cancel running sessions" })

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
