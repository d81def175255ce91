-- workspace/applyEdit (DESIGN.md E9, E13, E14, E18, T17): a proposed edit
-- opens the per-hunk review (review.lua), one item per hunk, with three
-- lines of context, and one item for a new file with all its content (a
-- new file is one decision). Hunks the server marks as already approved
-- (needsConfirmation = false) are applied without a question, as is
-- everything when the confirm_edits option is off. Only the accepted hunks
-- are applied, and nothing when the edit went stale: a buffer at another
-- version, or a file that changed on disk during the review.
--
-- The review is not modal: the request stays unanswered while it is open
-- (reply_later.lua), and is answered when the user finishes it or the
-- prompt_timeout runs out.

local reply_later = require("agentls.reply_later")
local wedit = require("agentls.workspace_edit")

-- review_items returns the items to review and, in the same order, the
-- edits, resource operations or new documents they stand for; what needs
-- no review goes into keep.
local function review_items(edit, docs, ops, encoding, keep)
  local confirm = require("agentls").config.confirm_edits
  local items, targets = {}, {}
  for _, doc in ipairs(docs) do
    wedit.snapshot(doc)
    if doc.create then
      doc.text = wedit.new_file_text(doc, encoding)
      local needs = wedit.needs_confirmation(edit, doc.create)
      for _, e in ipairs(doc.edits) do
        needs = needs or wedit.needs_confirmation(edit, e)
      end
      if needs and confirm then
        local name = vim.fn.fnamemodify(doc.fname, ":.")
        local n = #vim.split(doc.text, "\n", { plain = true, trimempty = true })
        table.insert(items, { title = string.format("create %s (%d lines)", name, n), lines = wedit.new_file_lines(doc, doc.text) })
        table.insert(targets, doc)
      else
        keep[doc] = true
      end
    else
      for _, e in ipairs(doc.edits) do
        local needs, ann = wedit.needs_confirmation(edit, e)
        if needs and confirm then
          local title = (ann and ann.label) or vim.fn.fnamemodify(doc.fname, ":.")
          table.insert(items, { title = title, lines = wedit.hunk_lines(doc, e, encoding), text = e.newText,
            filetype = vim.bo[doc.bufnr].filetype })
          table.insert(targets, e)
        else
          keep[e] = true
        end
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

-- answers is the "agentls" member of the reply (lspserver's package
-- documentation, issue 28): the reasons the user gave for rejected hunks
-- and the text of hunks they edited, by the server's hunk index (the N
-- of annotation "agentls.N"). An edited hunk's edit takes the user's text.
local function answers(decisions, shown, targets)
  local hunks = {}
  for i, t in ipairs(targets) do
    local idx = type(t.annotationId) == "string" and tonumber(t.annotationId:match("^agentls%.(%d+)$"))
    if idx then
      local a = { index = idx }
      if decisions[i] == false and shown.reasons[i] then
        a.reason = shown.reasons[i]
      elseif decisions[i] and shown.edited[i] then
        a.text = shown.edited[i]
        t.newText = shown.edited[i]
      end
      if a.reason or a.text then
        table.insert(hunks, a)
      end
    end
  end
  if #hunks == 0 then
    return nil
  end
  return { hunks = hunks }
end

-- apply applies what was kept and answers the request.
local function apply(client, edit, docs, keep)
  local out = wedit.accepted(edit, keep)
  local creates = {}
  for _, doc in ipairs(docs) do
    if doc.create and keep[doc] then
      table.insert(creates, doc)
    end
  end
  if not out and #creates == 0 then
    return { applied = false, failureReason = "the user rejected every hunk" }
  end
  -- The buffer or the file may have changed while the review was open.
  local stale = wedit.stale_reason(edit)
  if stale then
    return { applied = false, failureReason = stale }
  end
  for _, doc in ipairs(docs) do
    if wedit.changed_on_disk(doc) then
      return { applied = false, failureReason = "stale: " .. doc.fname .. " changed on disk; reload it (:checktime)" }
    end
  end
  for _, doc in ipairs(creates) do
    local err = wedit.create_file(doc, doc.text)
    if err then
      return { applied = false, failureReason = err }
    end
  end
  if out then
    local aok, aerr = pcall(vim.lsp.util.apply_workspace_edit, out, client.offset_encoding)
    if not aok then
      return { applied = false, failureReason = tostring(aerr) }
    end
  end
  return { applied = true }
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
  if #items == 0 then
    return apply(client, edit, docs, keep)
  end
  local agentls = require("agentls")
  return reply_later.await(ctx.client_id, agentls.config.prompt_timeout, function(reply)
    require("agentls.review").open(items, {
      title = params.label or "review the proposed change",
      timeout = agentls.config.prompt_timeout,
      on_open = agentls.config.on_review,
    }, function(decisions, shown)
      agentls.last_preview = shown.lines
      agentls.last_review = shown
      if not decisions then
        reply({ applied = false, failureReason = shown.reason or "rejected by the user" })
        return
      end
      for i, yes in ipairs(decisions) do
        if yes then
          keep[targets[i]] = true
        end
      end
      local said = answers(decisions, shown, targets)
      local aok, res = pcall(apply, client, edit, docs, keep)
      res = aok and res or { applied = false, failureReason = tostring(res) }
      res.agentls = said
      reply(res)
    end)
  end)
end
