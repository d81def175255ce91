-- What the applyEdit handler (handlers/apply_edit.lua) needs to know about
-- a WorkspaceEdit (DESIGN.md E9, E13, T17): its documents and the hunks
-- that need confirmation, each hunk as a unified diff, whether the edit is
-- stale (a buffer at another version, a file changed on disk), and the
-- edit that is left once the user decided. Reads buffers and files;
-- changes none but the new files it creates (create_file).

local M = {}

-- stale_reason: Neovim 0.7 silently skips an edit for an older version and
-- still reports success, so the plugin checks versions itself (DESIGN.md E9).
function M.stale_reason(edit)
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

-- documents lists the text edits of a WorkspaceEdit per document, in order,
-- with the resource operations that go with them. A document whose file a
-- create operation before it makes is a new file: doc.create is that
-- operation, and the two are one decision (issue 24, E18).
function M.documents(edit)
  local docs, ops, creates = {}, {}, {}
  for _, change in ipairs(edit.documentChanges or {}) do
    if change.kind then
      table.insert(ops, change)
      if change.kind == "create" then
        creates[change.uri] = change
      end
    else
      local v = change.textDocument.version
      local uri = change.textDocument.uri
      table.insert(docs, { uri = uri, version = (v ~= vim.NIL) and v or nil, edits = change.edits or {}, create = creates[uri] })
    end
  end
  for uri, edits in pairs(edit.changes or {}) do
    table.insert(docs, { uri = uri, edits = edits, plain = true })
  end
  -- A create without edits makes an empty file.
  for _, op in ipairs(ops) do
    if op.kind == "create" and not vim.tbl_contains(vim.tbl_map(function(d)
      return d.create
    end, docs), op) then
      table.insert(docs, { uri = op.uri, edits = {}, create = op })
    end
  end
  return docs, ops
end

-- needs_confirmation: edits whose annotation says needsConfirmation =
-- false (the policy or a question already approved them) need none; edits
-- without an annotation do. Also returns the annotation.
function M.needs_confirmation(edit, e)
  local id = e.annotationId
  local ann = id and edit.changeAnnotations and edit.changeAnnotations[id]
  return not (ann and ann.needsConfirmation == false), ann
end

-- snapshot records in doc the lines of its buffer, loading it (hidden)
-- when needed, and what the disk held when the review started.
function M.snapshot(doc)
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
function M.hunk_lines(doc, e, encoding)
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
function M.changed_on_disk(doc)
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

-- new_file_text is the text a new file's document edits make: they are
-- applied to an empty scratch buffer (one empty line, as every buffer
-- has), whose lines joined with "\n" are the file's bytes. Applying them
-- to the file's own buffer, as Neovim's apply_workspace_edit does, leaves
-- that empty line at the end: an extra blank line (issue 24).
function M.new_file_text(doc, encoding)
  local scratch = vim.api.nvim_create_buf(false, true)
  local edits = {}
  for _, e in ipairs(doc.edits) do
    table.insert(edits, plain_edit(e))
  end
  vim.lsp.util.apply_text_edits(edits, scratch, encoding)
  local lines = vim.api.nvim_buf_get_lines(scratch, 0, -1, false)
  vim.api.nvim_buf_delete(scratch, { force = true })
  return table.concat(lines, "\n")
end

-- new_file_lines renders a new file as a unified diff from /dev/null.
function M.new_file_lines(doc, text)
  local name = vim.fn.fnamemodify(doc.fname, ":.")
  local lines = vim.split(text, "\n", { plain = true })
  local eol = lines[#lines] == ""
  if eol then
    table.remove(lines)
  end
  local out = { "--- /dev/null", "+++ b/" .. name, string.format("@@ -0,0 +%d @@", #lines) }
  for _, l in ipairs(lines) do
    table.insert(out, "+" .. l)
  end
  if not eol and #lines > 0 then
    table.insert(out, "\\ No newline at end of file")
  end
  return out
end

-- create_file makes a new file with exactly text, and fails when it
-- exists (the server's CreateFile says overwrite = false, ignoreIfExists =
-- false) or a buffer of that name holds text. A loaded empty buffer of
-- that name is reloaded. Returns nil or why it did not.
function M.create_file(doc, text)
  local fname = doc.fname
  if vim.loop.fs_stat(fname) then
    return "stale: " .. fname .. " was created while the review was open; nothing written"
  end
  local bufnr = vim.fn.bufnr(fname)
  local loaded = bufnr > 0 and vim.api.nvim_buf_is_loaded(bufnr)
  if loaded then
    local lines = vim.api.nvim_buf_get_lines(bufnr, 0, -1, false)
    if vim.bo[bufnr].modified or #lines > 1 or (lines[1] or "") ~= "" then
      return "stale: the buffer " .. fname .. " holds text that is not on disk; nothing written"
    end
  end
  vim.fn.mkdir(vim.fn.fnamemodify(fname, ":h"), "p")
  local fd, err = vim.loop.fs_open(fname, "wx", 420) -- 0o644, and never over an existing file
  if not fd then
    return "cannot create " .. fname .. ": " .. tostring(err)
  end
  local ok, werr = vim.loop.fs_write(fd, text, 0)
  vim.loop.fs_close(fd)
  if not ok then
    return "cannot write " .. fname .. ": " .. tostring(werr)
  end
  if loaded then
    vim.api.nvim_buf_call(bufnr, function()
      vim.cmd("silent! edit!")
    end)
  end
  return nil
end

-- accepted keeps, of a WorkspaceEdit, the hunks that were accepted or
-- need no confirmation (keep[edit or operation] = true); nil when nothing
-- is left. New files (a create and the edits of its document) are left
-- out: create_file makes them.
function M.accepted(edit, keep)
  local out, any = { documentChanges = {} }, false
  local created = {}
  for _, change in ipairs(edit.documentChanges or {}) do
    if change.kind == "create" then
      created[change.uri] = true
    elseif change.kind then
      if keep[change] then
        local op = vim.deepcopy(change)
        op.annotationId = nil
        table.insert(out.documentChanges, op)
        any = true
      end
    elseif not created[change.textDocument.uri] then
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

return M
