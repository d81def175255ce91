-- What the applyEdit handler (handlers/apply_edit.lua) needs to know about
-- a WorkspaceEdit (DESIGN.md E9, E13, T17): its documents and the hunks
-- that need confirmation, each hunk as a unified diff, whether the edit is
-- stale (a buffer at another version, a file changed on disk), and the
-- edit that is left once the user decided. Reads buffers and files; never
-- changes them.

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
-- with the resource operations that go with them.
function M.documents(edit)
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

-- accepted keeps, of a WorkspaceEdit, the hunks that were accepted or
-- need no confirmation (keep[edit or operation] = true); nil when nothing
-- is left.
function M.accepted(edit, keep)
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

return M
