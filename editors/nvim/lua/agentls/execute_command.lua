-- workspace/executeCommand from the editor: sends one agentls command
-- (agentls.plan, .review, .execute, .cancel, .revert), asking for the
-- instruction first when a plan or an execute has none; opens the run's
-- live view (runs.lua) and, when the answer comes, records it
-- (require("agentls").last_result, last_run), shows it (results.lua) and
-- calls the on_result option.

local client = require("agentls.client")
local results = require("agentls.results")
local runs = require("agentls.runs")
local ui = require("agentls.ui")

local M = {}

-- finish records and shows the answer to command; run is its live view, if any.
local function finish(command, arg, run, err, result)
  local agentls = require("agentls")
  agentls.last_result = { command = command, result = result, err = err }
  if run then
    agentls.last_result.plan = runs.finish(run, err, result)
  end
  if err then
    results.show_error(command, err)
  elseif command == "agentls.cancel" then
    ui.notify(string.format("cancelled %d run(s)", #((result or {}).cancelled or {})))
  elseif command == "agentls.revert" then
    results.show_revert(result or {})
  elseif result then
    if arg and arg.uri then
      agentls.last_run = { command = command, arg = { uri = arg.uri, range = arg.range }, result = result }
    end
    results.show(command, result)
  end
end

-- execute sends one agentls command; arg is {uri, range?, instruction?,
-- sessionId?}, or {runId} for a revert, or nil. on_done(err, result) runs
-- before the on_result option.
function M.execute(command, arg, bufnr, on_done)
  local c = client.get()
  if not c then
    ui.notify("the agentls server is not running", vim.log.levels.ERROR)
    return
  end
  local function send()
    local run -- the live view, made when the request is sent
    local params = { command = command, arguments = arg and { arg } or nil }
    -- A run view for runs on a file; a revert of a named run ({runId}) has none.
    if arg and arg.uri and command ~= "agentls.cancel" then
      run = runs.begin(command, arg)
    end
    client.request(c, "workspace/executeCommand", params, function(err, result)
      finish(command, arg, run, err, result)
      if on_done then
        on_done(err, result)
      end
      local on_result = require("agentls").config.on_result
      if on_result then
        on_result(command, result, err)
      end
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

-- code_action runs the command of one of the server's code actions, which
-- carries {uri, range} only: the instruction is asked for.
function M.code_action(command, ctx)
  local arg = vim.deepcopy((command.arguments or {})[1] or {})
  M.execute(command.command, arg, ctx and ctx.bufnr)
end

return M
