-- workspace/applyEdit (DESIGN.md E9, E13, E14, T17): a proposed edit opens
-- the per-hunk review (review.lua), one item per hunk, with three lines of
-- context. Hunks the server marks as already approved (needsConfirmation =
-- false) are applied without a question, as is everything when the
-- confirm_edits option is off. Only the accepted hunks are applied, and
-- nothing when the edit went stale: a buffer at another version, or a file
-- that changed on disk during the review.

local wedit = require("agentls.workspace_edit")

-- review_items returns the items to review and, in the same order, the
-- edits or resource operations they stand for; what needs no review goes
-- into keep.
local function review_items(edit, docs, ops, encoding, keep)
  local confirm = require("agentls").config.confirm_edits
  local items, targets = {}, {}
  for _, doc in ipairs(docs) do
    wedit.snapshot(doc)
    for _, e in ipairs(doc.edits) do
      local needs, ann = wedit.needs_confirmation(edit, e)
      if needs and confirm then
        local title = (ann and ann.label) or vim.fn.fnamemodify(doc.fname, ":.")
        table.insert(items, { title = title, lines = wedit.hunk_lines(doc, e, encoding) })
        table.insert(targets, e)
      else
        keep[e] = true
      end
    end
  end
  for _, op in ipairs(ops) do
    if op.kind ~= "create" then
      local needs = wedit.needs_confirmation(edit, op)
      if needs and confirm then
        local what = op.kind == "rename" and (vim.uri_to_fname(op.oldUri) .. " -> " .. vim.uri_to_fname(op.newUri)) or vim.uri_to_fname(op.uri)
        table.insert(items, { title = op.kind .. " " .. what, lines = { op.kind .. " " .. what } })
        table.insert(targets, op)
      else
        keep[op] = true
      end
    end
  end
  return items, targets
end

-- review shows the items and marks the accepted ones in keep; false when
-- the user rejected everything (q, or no answer in time).
local function review(params, items, targets, keep)
  local agentls = require("agentls")
  local decisions, shown = require("agentls.review").run(items, {
    title = params.label or "review the proposed change",
    timeout = agentls.config.prompt_timeout,
    on_open = agentls.config.on_review,
  })
  agentls.last_preview = shown.lines
  agentls.last_review = shown
  if not decisions then
    return false
  end
  for i, yes in ipairs(decisions) do
    if yes then
      keep[targets[i]] = true
    end
  end
  return true
end

return function(_, params, ctx)
  local client = vim.lsp.get_client_by_id(ctx.client_id)
  local edit = params and params.edit
  if not client or not edit then
    return { applied = false, failureReason = "no edit" }
  end
  local stale = wedit.stale_reason(edit)
  if stale then
    return { applied = false, failureReason = stale }
  end
  local docs, ops = wedit.documents(edit)
  local keep = {}
  local ok, items, targets = pcall(review_items, edit, docs, ops, client.offset_encoding, keep)
  if not ok then
    return { applied = false, failureReason = "cannot preview edit: " .. tostring(items) }
  end
  if #items > 0 and not review(params, items, targets, keep) then
    return { applied = false, failureReason = "rejected by the user" }
  end
  local out = wedit.accepted(edit, keep)
  if not out then
    return { applied = false, failureReason = "the user rejected every hunk" }
  end
  -- The buffer or the file may have changed while the review was open.
  stale = wedit.stale_reason(edit)
  if stale then
    return { applied = false, failureReason = stale }
  end
  for _, doc in ipairs(docs) do
    if wedit.changed_on_disk(doc) then
      return { applied = false, failureReason = "stale: " .. doc.fname .. " changed on disk; reload it (:checktime)" }
    end
  end
  local aok, aerr = pcall(vim.lsp.util.apply_workspace_edit, out, client.offset_encoding)
  if not aok then
    return { applied = false, failureReason = tostring(aerr) }
  end
  return { applied = true }
end
