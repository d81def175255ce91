-- The Ex commands of the plugin (`:help agentls-commands`), defined by
-- plugin/agentls.lua at startup and again by setup(). They load the rest
-- of the plugin only when run, and until setup() was called they say so
-- instead of starting a server: setup() is what starts agentls.

local M = {}

-- line_range turns an Ex range into an LSP range (UTF-16 columns).
local function line_range(bufnr, line1, line2)
  local last = vim.api.nvim_buf_get_lines(bufnr, line2 - 1, line2, false)[1] or ""
  local _, utf16 = vim.str_utfindex(last)
  return { start = { line = line1 - 1, character = 0 }, ["end"] = { line = line2 - 1, character = utf16 } }
end

-- args is the command's argument string, nil when empty.
local function args(o)
  return o.args ~= "" and o.args or nil
end

-- split_images takes the ++image=PATH words out of a run command's
-- arguments (issue 25): it returns the instruction without them (nil when
-- empty), the file URIs of the pictures, and an error for a word that names
-- no readable file. The server checks the rest (in the workspace, a picture
-- by its name, at most four).
function M.split_images(str)
  local images, words, bad = {}, {}, nil
  for word in (str or ""):gmatch("%S+") do
    local path = word:match("^%+%+image=(.*)$")
    if not path then
      table.insert(words, word)
    elseif path == "" or vim.fn.filereadable(vim.fn.expand(path)) ~= 1 then
      bad = bad or ("no readable image file: " .. (path == "" and "(empty)" or path))
    else
      table.insert(images, vim.uri_from_fname(vim.fn.fnamemodify(vim.fn.expand(path), ":p")))
    end
  end
  if #images == 0 and not bad then
    return str ~= "" and str or nil, nil, nil -- the instruction as typed
  end
  local instruction = table.concat(words, " ")
  return instruction ~= "" and instruction or nil, images, bad
end

-- complete_run completes ++image= with file names; other words are free text.
function M.complete_run(lead)
  if vim.startswith(lead, "++image=") then
    return vim.tbl_map(function(f)
      return "++image=" .. f
    end, vim.fn.getcompletion(lead:sub(9), "file"))
  end
  if lead ~= "" and vim.startswith("++image=", lead) then
    return { "++image=" }
  end
  return {}
end

local function ranged(command)
  return function(o)
    local range = o.range > 0 and line_range(0, o.line1, o.line2) or nil
    local instruction, images, bad = M.split_images(o.args)
    if bad then
      vim.notify("agentls: " .. bad, vim.log.levels.ERROR, { title = "agentls" })
      return
    end
    require("agentls").run(command, { range = range, instruction = instruction, images = images })
  end
end

-- The commands: name, what it runs with the command's table (see
-- nvim_create_user_command), and its attributes.
M.commands = {
  { "AgentPlan", ranged("agentls.plan"), { range = true, nargs = "*", complete = M.complete_run, desc = "agentls: plan a change (read-only)" } },
  { "AgentReview", ranged("agentls.review"), { range = true, nargs = "*", complete = M.complete_run, desc = "agentls: review the range or file" } },
  { "AgentExecute", ranged("agentls.execute"), { range = true, nargs = "*", complete = M.complete_run, desc = "agentls: make a change, edits shown for approval" } },
  { "AgentCancel", function()
    require("agentls").cancel()
  end, { desc = "agentls: cancel running sessions" } },
  { "AgentExecutePlan", function()
    require("agentls").execute_plan()
  end, { desc = "agentls: carry out the last plan" } },
  { "AgentFollowUp", function(o)
    require("agentls").follow_up(args(o))
  end, { nargs = "*", desc = "agentls: continue the last run's session" } },
  { "AgentRevert", function(o)
    require("agentls").revert(args(o))
  end, { nargs = "?", desc = "agentls: restore the files a run changed" } },
  { "AgentRuns", function(o)
    require("agentls.runs").reopen(o.args)
  end, { nargs = "?", desc = "agentls: reopen a run's live view (default: the newest)" } },
  { "AgentPlans", function()
    require("agentls.runs").pick_plan()
  end, { desc = "agentls: open a saved plan" } },
  { "AgentPending", function()
    require("agentls.review").resume()
  end, { desc = "agentls: reopen the review of a proposed edit that waits for you" } },
  { "AgentSessions", function()
    require("agentls.sessions").pick()
  end, { desc = "agentls: pick a session: show it, continue it, revert one of its runs" } },
}

-- define (re)defines every command.
function M.define()
  for _, c in ipairs(M.commands) do
    local name, fn, attrs = c[1], c[2], c[3]
    vim.api.nvim_create_user_command(name, function(o)
      local agentls = package.loaded["agentls"]
      if not (agentls and agentls.did_setup) then
        vim.notify("agentls: call require(\"agentls\").setup() first (:help agentls-setup)", vim.log.levels.ERROR, { title = "agentls" })
        return
      end
      fn(o)
    end, attrs)
  end
end

return M
