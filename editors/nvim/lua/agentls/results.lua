-- How the result of a command is shown: a vim.notify message with the
-- status, summary, steps and edit counts, what to do next (:AgentExecutePlan
-- after a plan, :AgentRevert after an execute that changed files), review
-- findings in the quickfix list; reverts and errors (with the error's
-- data.reason, never its message alone, STYLE.md §4).

local runs = require("agentls.runs")
local ui = require("agentls.ui")

local M = {}

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

-- quickfix puts a review's findings into the quickfix list, paths relative
-- to the workspace root.
local function quickfix(name, findings)
  local root = require("agentls").root_dir()
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
end

-- edits_text is runs.edits_text: the one line that counts a run's edits.
M.edits_text = runs.edits_text

-- show tells the result of a plan, review or execute.
function M.show(command, result)
  local name = command:gsub("^agentls%.", "")
  local lines = { string.format("%s %s: %s", name, result.status or "?", result.summary or "") }
  for i, step in ipairs(result.steps or {}) do
    table.insert(lines, string.format("  %d. %s", i, step_text(step)))
  end
  local e = result.edits
  local counts = M.edits_text(e)
  if counts then
    table.insert(lines, counts)
  end
  local findings = result.findings or {}
  if #findings > 0 then
    quickfix(name, findings)
    table.insert(lines, string.format("%d finding(s) in the quickfix list (:copen)", #findings))
  end
  if command == "agentls.plan" and result.status == "done" then
    table.insert(lines, ":AgentExecutePlan carries out this plan, :AgentFollowUp asks more")
  elseif command == "agentls.execute" and e and (e.applied or 0) > 0 then
    table.insert(lines, ":AgentRevert undoes this run (" .. (result.runId or "?") .. ")")
  end
  local level = result.status == "failed" and vim.log.levels.WARN or vim.log.levels.INFO
  ui.notify(table.concat(lines, "\n"), level)
end

-- show_revert tells which files a revert restored, left alone or failed on.
function M.show_revert(result)
  local lines = { string.format("reverted %s: %d file(s) restored", result.reverted or "?", #(result.restored or {})) }
  for _, f in ipairs(result.stale or {}) do
    table.insert(lines, string.format("  stale, left as it is: %s (%s)", f.path, f.reason))
  end
  for _, f in ipairs(result.failed or {}) do
    table.insert(lines, string.format("  failed: %s (%s)", f.path, f.reason))
  end
  local bad = #(result.stale or {}) + #(result.failed or {}) > 0
  ui.notify(table.concat(lines, "\n"), bad and vim.log.levels.WARN or vim.log.levels.INFO)
end

function M.show_error(command, err)
  local reason = type(err.data) == "table" and err.data.reason
  ui.notify(string.format("%s failed: %s%s", command, err.message or "error", reason and (" (" .. reason .. ")") or ""), vim.log.levels.ERROR)
end

return M
