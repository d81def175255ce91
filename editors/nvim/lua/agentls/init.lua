-- agentls for Neovim (0.7+): starts `agentls serve` with the built-in LSP
-- client and adds :AgentPlan, :AgentReview, :AgentExecute and :AgentCancel,
-- and for sessions :AgentExecutePlan (carry out the last plan),
-- :AgentFollowUp (continue the last run's session) and :AgentRevert.
--
-- What the plugin adds on top of the built-in client (DESIGN.md E13):
--   * window/showMessageRequest is answered with vim.ui.select, never with the
--     blocking inputlist of the default handler;
--   * workspace/applyEdit opens a per-hunk review (review.lua): each hunk of
--     the proposed change with three lines of context, accepted or rejected
--     one by one; hunks the server marks as already approved
--     (needsConfirmation = false) apply without a question; stale edits are
--     refused (a buffer at another version, a file changed on disk);
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
  -- Review proposed edits hunk by hunk before applying them.
  confirm_edits = true,
  -- Called when a review opens: function(review) with review.buf, review.win
  -- and review.items (tests feed keys from here).
  on_review = nil,
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
M.last_run = nil -- { command = ..., arg = {uri, range}, result = ... } of the last plan, review or execute
M.last_preview = nil -- lines of the last review shown for a proposed edit
M.last_review = nil -- the last review: { items, lines, result = decisions or nil }

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

-- stale_reason: Neovim 0.7 silently skips an edit for an older version and
-- still reports success, so the plugin checks versions itself (DESIGN.md E9).
local function stale_reason(edit)
  for _, change in ipairs(edit.documentChanges or {}) do
    local td = change.textDocument
    if td and td.version ~= nil and td.version ~= vim.NIL then
      local bufnr = vim.uri_to_bufnr(td.uri)
      local current = vim.lsp.util.buf_versions[bufnr]
      if current and current ~= td.version then
        return string.format("stale: edit is for version %d, %s is at %d", td.version, td.uri, current)
      end
    end
  end
end

local function read_disk(fname)
  local f = io.open(fname, "rb")
  if not f then
    return nil
  end
  local s = f:read("*a")
  f:close()
  return s
end

-- same_text compares a buffer's text with a file's, up to the final
-- newline and DOS line ends.
local function same_text(a, b)
  local function norm(s)
    return (s:gsub("\r\n", "\n"):gsub("\n$", ""))
  end
  return norm(a) == norm(b)
end

-- Per-hunk review (E13). The server sends one annotated edit per hunk;
-- edits whose annotation says needsConfirmation = false (the policy or a
-- question already approved them) are applied without asking, the others
-- are reviewed one by one. Edits without an annotation are reviewed too.

-- documents lists the text edits of a WorkspaceEdit per document, in order,
-- with the resource operations that go with them.
local function documents(edit)
  local docs, ops = {}, {}
  for _, change in ipairs(edit.documentChanges or {}) do
    if change.kind then
      table.insert(ops, change)
    else
      local v = change.textDocument.version
      table.insert(docs, { uri = change.textDocument.uri, version = (v ~= vim.NIL) and v or nil, edits = change.edits or {} })
    end
  end
  for uri, edits in pairs(edit.changes or {}) do
    table.insert(docs, { uri = uri, edits = edits, plain = true })
  end
  return docs, ops
end

local function needs_confirmation(edit, e)
  local id = e.annotationId
  local ann = id and edit.changeAnnotations and edit.changeAnnotations[id]
  return not (ann and ann.needsConfirmation == false), ann
end

-- buffer_text returns the lines of uri's buffer, loading it (hidden) when
-- needed, and what the disk held when the review started.
local function snapshot(doc)
  local fname = vim.uri_to_fname(doc.uri)
  doc.fname = fname
  doc.disk = read_disk(fname)
  doc.bufnr = vim.uri_to_bufnr(doc.uri)
  doc.was_loaded = vim.api.nvim_buf_is_loaded(doc.bufnr)
  if doc.disk or doc.was_loaded then
    vim.fn.bufload(doc.bufnr)
    doc.lines = vim.api.nvim_buf_get_lines(doc.bufnr, 0, -1, false)
  else
    doc.lines = {} -- a file to be created
  end
end

-- plain_edit drops an edit's annotation: the review has confirmed it, and
-- Neovim 0.12's own apply would ask again (or refuse an annotation it is
-- not given).
local function plain_edit(e)
  return { range = e.range, newText = e.newText }
end

-- hunk_lines renders one edit against the document as a unified diff with
-- three lines of context.
local function hunk_lines(doc, e, encoding)
  local scratch = vim.api.nvim_create_buf(false, true)
  vim.api.nvim_buf_set_lines(scratch, 0, -1, false, doc.lines)
  vim.lsp.util.apply_text_edits({ plain_edit(e) }, scratch, encoding)
  local new = vim.api.nvim_buf_get_lines(scratch, 0, -1, false)
  vim.api.nvim_buf_delete(scratch, { force = true })
  local name = vim.fn.fnamemodify(doc.fname, ":.")
  local d = vim.diff(table.concat(doc.lines, "\n") .. "\n", table.concat(new, "\n") .. "\n", { result_type = "unified", ctxlen = 3 })
  local out = { "--- a/" .. name, "+++ b/" .. name }
  vim.list_extend(out, vim.split(d, "\n", { plain = true, trimempty = true }))
  return out
end

-- changed_on_disk reports a document whose file changed since the review
-- began, or (for an unmodified buffer) differs from what the buffer shows:
-- applying the edit would then land on content the user never saw.
local function changed_on_disk(doc)
  local now = read_disk(doc.fname)
  if doc.was_loaded then
    if vim.bo[doc.bufnr].modified or now == nil then
      return false
    end
    local text = table.concat(vim.api.nvim_buf_get_lines(doc.bufnr, 0, -1, false), "\n")
    return not same_text(text, now)
  end
  return now ~= doc.disk
end

-- accepted_edit keeps, of a WorkspaceEdit, the hunks that were accepted or
-- need no confirmation; nil when nothing is left.
local function accepted_edit(edit, keep)
  local out, any = { documentChanges = {} }, false
  local kept_uri = {}
  for _, change in ipairs(edit.documentChanges or {}) do
    if not change.kind then
      local edits = {}
      for _, e in ipairs(change.edits or {}) do
        if keep[e] then
          table.insert(edits, e)
        end
      end
      if #edits > 0 then
        kept_uri[change.textDocument.uri] = true
      end
    end
  end
  for _, change in ipairs(edit.documentChanges or {}) do
    if change.kind == "create" then
      if kept_uri[change.uri] then
        table.insert(out.documentChanges, change)
      end
    elseif change.kind then
      if keep[change] then
        local op = vim.deepcopy(change)
        op.annotationId = nil
        table.insert(out.documentChanges, op)
        any = true
      end
    else
      local edits = {}
      for _, e in ipairs(change.edits or {}) do
        if keep[e] then
          table.insert(edits, plain_edit(e))
        end
      end
      if #edits > 0 then
        table.insert(out.documentChanges, { textDocument = change.textDocument, edits = edits })
        any = true
      end
    end
  end
  for uri, edits in pairs(edit.changes or {}) do
    local kept = {}
    for _, e in ipairs(edits) do
      if keep[e] then
        table.insert(kept, plain_edit(e))
      end
    end
    if #kept > 0 then
      out.changes = out.changes or {}
      out.changes[uri] = kept
      any = true
    end
  end
  if not any then
    return nil
  end
  if #out.documentChanges == 0 then
    out.documentChanges = nil
  end
  return out
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
  local docs, ops = documents(edit)
  local keep, items, targets = {}, {}, {}
  local ok, err = pcall(function()
    for _, doc in ipairs(docs) do
      snapshot(doc)
      for _, e in ipairs(doc.edits) do
        local needs, ann = needs_confirmation(edit, e)
        if needs and M.config.confirm_edits then
          local title = (ann and ann.label) or vim.fn.fnamemodify(doc.fname, ":.")
          table.insert(items, { title = title, lines = hunk_lines(doc, e, client.offset_encoding) })
          table.insert(targets, e)
        else
          keep[e] = true
        end
      end
    end
    for _, op in ipairs(ops) do
      if op.kind ~= "create" then
        local needs = needs_confirmation(edit, op)
        if needs and M.config.confirm_edits then
          local what = op.kind == "rename" and (vim.uri_to_fname(op.oldUri) .. " -> " .. vim.uri_to_fname(op.newUri)) or vim.uri_to_fname(op.uri)
          table.insert(items, { title = op.kind .. " " .. what, lines = { op.kind .. " " .. what } })
          table.insert(targets, op)
        else
          keep[op] = true
        end
      end
    end
  end)
  if not ok then
    return { applied = false, failureReason = "cannot preview edit: " .. tostring(err) }
  end
  if #items > 0 then
    local decisions, review = require("agentls.review").run(items, {
      title = params.label or "review the proposed change",
      timeout = M.config.prompt_timeout,
      on_open = M.config.on_review,
    })
    M.last_preview = review.lines
    M.last_review = review
    if not decisions then
      return { applied = false, failureReason = "rejected by the user" }
    end
    for i, yes in ipairs(decisions) do
      if yes then
        keep[targets[i]] = true
      end
    end
  end
  local out = accepted_edit(edit, keep)
  if not out then
    return { applied = false, failureReason = "the user rejected every hunk" }
  end
  -- The buffer or the file may have changed while the review was open.
  stale = stale_reason(edit)
  if stale then
    return { applied = false, failureReason = stale }
  end
  for _, doc in ipairs(docs) do
    if changed_on_disk(doc) then
      return { applied = false, failureReason = "stale: " .. doc.fname .. " changed on disk; reload it (:checktime)" }
    end
  end
  local aok, aerr = pcall(vim.lsp.util.apply_workspace_edit, out, client.offset_encoding)
  if not aok then
    return { applied = false, failureReason = tostring(aerr) }
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
    local stale = (e.stale or 0) > 0 and string.format(", %d stale (the file changed)", e.stale) or ""
    table.insert(lines, string.format("edits: %d proposed, %d applied, %d rejected%s", e.proposed, e.applied or 0, e.rejected or 0, stale))
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
  if command == "agentls.plan" and result.status == "done" then
    table.insert(lines, ":AgentExecutePlan carries out this plan, :AgentFollowUp asks more")
  elseif command == "agentls.execute" and e and (e.applied or 0) > 0 then
    table.insert(lines, ":AgentRevert undoes this run (" .. (result.runId or "?") .. ")")
  end
  local level = result.status == "failed" and vim.log.levels.WARN or vim.log.levels.INFO
  notify(table.concat(lines, "\n"), level)
end

local function show_revert(result)
  local lines = { string.format("reverted %s: %d file(s) restored", result.reverted or "?", #(result.restored or {})) }
  for _, f in ipairs(result.stale or {}) do
    table.insert(lines, string.format("  stale, left as it is: %s (%s)", f.path, f.reason))
  end
  for _, f in ipairs(result.failed or {}) do
    table.insert(lines, string.format("  failed: %s (%s)", f.path, f.reason))
  end
  local bad = #(result.stale or {}) + #(result.failed or {}) > 0
  notify(table.concat(lines, "\n"), bad and vim.log.levels.WARN or vim.log.levels.INFO)
end

local function show_error(command, err)
  local reason = type(err.data) == "table" and err.data.reason
  notify(string.format("%s failed: %s%s", command, err.message or "error", reason and (" (" .. reason .. ")") or ""), vim.log.levels.ERROR)
end

---------------------------------------------------------------------------
-- Client

-- Neovim 0.11 turned client functions into methods and deprecated
-- vim.lsp.start_client (removed in 0.13); 0.7 has only the old forms.
local modern = vim.fn.has("nvim-0.11") == 1

local function start_client(config)
  if modern then
    return vim.lsp.start(config, { attach = false })
  end
  return vim.lsp.start_client(config)
end

local function request(client, method, params, handler, bufnr)
  if modern then
    return client:request(method, params, handler, bufnr)
  end
  return client.request(method, params, handler, bufnr)
end

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
  -- Announcing annotations (with experimental.agentls) tells the server
  -- that this client confirms annotated edits (E14): only while the review
  -- is on. Without it the server asks with showMessageRequest first.
  if M.config.confirm_edits then
    caps.workspace.workspaceEdit.changeAnnotationSupport = { groupsOnLabel = false }
  else
    caps.workspace.workspaceEdit.changeAnnotationSupport = nil
  end
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
    elseif command == "agentls.revert" then
      show_revert(result or {})
    elseif result then
      if arg and arg.uri then
        M.last_run = { command = command, arg = { uri = arg.uri, range = arg.range }, result = result }
      end
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
    request(client, "workspace/executeCommand", params, function(err, result)
      finish(err, result)
    end, bufnr)
  end
  -- An execute that continues a session needs no instruction: it carries
  -- out the plan above.
  local executes_plan = command == "agentls.execute" and arg and arg.sessionId
  local needs_instruction = command == "agentls.plan" or (command == "agentls.execute" and not executes_plan)
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
  if client and not (modern and client:is_stopped() or not modern and client.is_stopped()) then
    return M.client_id
  end
  local cfg = M.config
  M.initialized = false
  M.client_id = start_client({
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

-- continue_last runs command (the last run's own when nil) in the last
-- run's session, with instruction (asked for when nil; "" for an execute
-- carries out the plan above).
local function continue_last(command, instruction, on_done)
  local last = M.last_run
  if not last or not last.result or not last.result.sessionId then
    notify("no run to continue yet; run :AgentPlan first", vim.log.levels.WARN)
    return
  end
  local arg = { uri = last.arg.uri, range = last.arg.range, sessionId = last.result.sessionId, instruction = instruction }
  local bufnr = vim.uri_to_bufnr(last.arg.uri)
  M.attach(bufnr)
  execute(command or last.command, arg, bufnr, on_done)
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
  execute("agentls.revert", run_id and { runId = run_id } or nil, nil, on_done)
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
  vim.api.nvim_create_user_command("AgentExecutePlan", function()
    M.execute_plan()
  end, { desc = "agentls: carry out the last plan" })
  vim.api.nvim_create_user_command("AgentFollowUp", function(o)
    M.follow_up(o.args ~= "" and o.args or nil)
  end, { nargs = "*", desc = "agentls: continue the last run's session" })
  vim.api.nvim_create_user_command("AgentRevert", function(o)
    M.revert(o.args ~= "" and o.args or nil)
  end, { nargs = "?", desc = "agentls: restore the files a run changed" })

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
