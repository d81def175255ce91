-- CodeCompanion.nvim's own ACP client (its Connection and PromptBuilder,
-- lua/codecompanion/acp) drives `agentls acp` from headless Neovim:
-- plan, then execute in the same session, answering each permission as
-- a user would (the first hunk of main.go yes, the rest no). What it saw
-- goes to $AGENTLS_E2E_RESULT as JSON (cmd/agentls/e2e_acp_test.go).
vim.opt.rtp:prepend(os.getenv("AGENTLS_E2E_PLENARY"))
vim.opt.rtp:prepend(os.getenv("AGENTLS_E2E_CODECOMPANION"))
local bin = os.getenv("AGENTLS_E2E_BIN")
local async = require("codecompanion.utils.async")
local seen = { text = "", plans = {}, tools = {}, permissions = {}, stops = {}, errors = {} }

local function finish()
  local f = assert(io.open(os.getenv("AGENTLS_E2E_RESULT"), "w"))
  f:write(vim.json.encode(seen))
  f:close()
  vim.cmd("qall!")
end

local function run()
  require("codecompanion").setup({
    opts = { log_level = "DEBUG" },
    adapters = {
      acp = {
        agentls = function()
          return require("codecompanion.adapters").extend("goose", {
            name = "agentls",
            formatted_name = "agentls",
            commands = { default = { bin, "acp" } },
          })
        end,
      },
    },
  })
  local adapter = require("codecompanion.adapters").resolve("agentls")
  local conn = require("codecompanion.acp").new({ adapter = adapter })
  assert(conn:connect_and_initialize(), "connect_and_initialize failed")

  local function prompt(mode, text)
    assert(conn:send_rpc_request("session/set_mode", { sessionId = conn.session_id, modeId = mode }) ~= nil, "set_mode " .. mode)
    local resume
    local function done()
      if resume then
        resume()
      end
    end
    conn
      :session_prompt({ { role = "user", content = text, _meta = { sent = false } } })
      :on_message_chunk(function(t)
        seen.text = seen.text .. t
      end)
      :on_plan(function(entries)
        table.insert(seen.plans, entries)
      end)
      :on_tool_call(function(c)
        table.insert(seen.tools, { kind = c.kind, title = c.title, status = c.status })
      end)
      :on_tool_update(function(c)
        if c.status then
          table.insert(seen.tools, { id = c.toolCallId, status = c.status, title = c.title })
        end
      end)
      :on_permission_request(function(req)
        local title = req.tool_call.title or ""
        table.insert(seen.permissions, { title = title, kind = req.tool_call.kind })
        if title:find("main.go: hunk 1 of 2", 1, true) then
          req.respond("allow_once")
        else
          req.respond("reject_once")
        end
      end)
      :on_complete(function(reason)
        table.insert(seen.stops, reason)
        done()
      end)
      :on_error(function(e)
        table.insert(seen.errors, vim.inspect(e))
        done()
      end)
      :send()
    async.wait(function(step)
      resume = step
    end)
  end

  prompt("plan", "How should the greeting change?")
  prompt("execute", "Carry out the plan.")
  conn:disconnect()
end

-- CodeCompanion's requests wait in its async coroutines: run the
-- scenario in one, and keep Neovim's loop going until it ends.
local ended = false
async.sync(function()
  local ok, err = pcall(run)
  if not ok then
    table.insert(seen.errors, tostring(err))
  end
end)(function()
  ended = true
end)
vim.wait(100000, function()
  return ended
end, 20)
if not ended then
  table.insert(seen.errors, "the scenario did not end")
  local f = io.open(vim.fn.stdpath("log") .. "/codecompanion.log")
  if f then
    io.stderr:write(f:read("*a"))
    f:close()
  end
end
finish()
