-- :AgentSessions, the sessions picker (issue 24): this workspace's
-- sessions, newest first, from `agentls sessions --json` (the server has
-- no command that lists them; the binary of the cmd option is run in the
-- workspace root with cmd_env), picked with vim.ui.select; then what to do
-- with the picked one: show it (`agentls sessions show`), continue it with
-- a new instruction (an execute in that session on the current buffer), or
-- revert one of its runs that changed files (agentls.revert, as
-- :AgentRevert RUN does).

local ui = require("agentls.ui")

local M = {}

-- agentls runs `agentls args…` in the workspace root and calls
-- on_done(stdout lines) or reports the failure.
local function agentls(args, on_done)
  local cfg = require("agentls").config
  local bin = require("agentls.health").binary(cfg.cmd)
  if not bin then
    local _, why = require("agentls.health").binary(cfg.cmd)
    ui.notify(why, vim.log.levels.ERROR)
    return
  end
  local cmd = vim.list_extend({ bin }, args)
  local out, errs = {}, {}
  local opts = {
    cwd = require("agentls").root_dir(),
    stdout_buffered = true,
    stderr_buffered = true,
    on_stdout = function(_, data)
      out = data or {}
    end,
    on_stderr = function(_, data)
      errs = data or {}
    end,
    on_exit = function(_, code)
      vim.schedule(function()
        if code ~= 0 then
          ui.notify(string.format("`agentls %s` failed (exit %d): %s", table.concat(args, " "), code, table.concat(errs, " ")), vim.log.levels.ERROR)
          return
        end
        on_done(out)
      end)
    end,
  }
  if cfg.cmd_env then
    opts.env = cfg.cmd_env
  end
  if vim.fn.jobstart(cmd, opts) <= 0 then
    ui.notify("cannot run " .. bin, vim.log.levels.ERROR)
  end
end

-- decode_lines decodes one JSON value a line.
local function decode_lines(lines)
  local out = {}
  for _, l in ipairs(lines) do
    if l ~= "" then
      local ok, v = pcall(vim.json.decode, l)
      if ok and type(v) == "table" then
        table.insert(out, v)
      end
    end
  end
  return out
end

local function visible(s)
  return require("agentls.runs").visible(s)
end

-- show puts `agentls sessions show ID` into a scratch buffer.
local function show(id)
  agentls({ "sessions", "show", id }, function(lines)
    vim.cmd("botright new")
    local buf = vim.api.nvim_get_current_buf()
    vim.bo[buf].buftype = "nofile"
    vim.bo[buf].bufhidden = "wipe"
    pcall(vim.api.nvim_buf_set_name, buf, "agentls://session/" .. id)
    vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
    vim.bo[buf].modifiable = false
  end)
end

-- continue_session runs an execute in session id on the current buffer,
-- with an instruction asked for.
local function continue_session(id)
  local a = require("agentls")
  local bufnr = vim.api.nvim_get_current_buf()
  if not a.attach(bufnr) then
    ui.notify("continue from a file buffer under " .. a.root_dir(), vim.log.levels.ERROR)
    return
  end
  vim.ui.input({ prompt = "agentls execute (session " .. id .. "): " }, function(input)
    if input and input ~= "" then
      local arg = { uri = vim.uri_from_bufnr(bufnr), sessionId = id, instruction = input }
      require("agentls.execute_command").execute("agentls.execute", arg, bufnr)
    end
  end)
end

-- actions lists what can be done with a session (its `sessions show --json`).
function M.actions(shown)
  local s = shown.session or {}
  local acts = {
    { label = "show session " .. visible(s.id), run = function()
      show(s.id)
    end },
    { label = "continue session " .. visible(s.id) .. " (execute an instruction on this buffer)", run = function()
      continue_session(s.id)
    end },
  }
  local runs = shown.runs or {}
  for i = #runs, 1, -1 do
    local r = runs[i]
    if r.changes and #r.changes > 0 and (r.revertedBy or 0) == 0 and r.mode ~= "revert" then
      local files = vim.tbl_map(function(c)
        return visible(c.path)
      end, r.changes)
      table.insert(acts, { label = string.format("revert run %s (%s: %s)", visible(r.id), visible(r.mode), table.concat(files, ", ")), run = function()
        require("agentls").revert(r.id)
      end })
    end
  end
  return acts
end

-- session_label is one line for the picker.
function M.session_label(s)
  local started = (s.started or ""):gsub("T", " "):sub(1, 16)
  return string.format("%s  %s  %s  %d run(s)  %s", visible(s.id), started, visible(s.mode), s.runs or 0, visible(s.task))
end

-- pick lists the sessions, then what to do with the picked one (:AgentSessions).
function M.pick()
  agentls({ "sessions", "--json" }, function(lines)
    local sessions = decode_lines(lines)
    if #sessions == 0 then
      ui.notify("no sessions in this workspace yet")
      return
    end
    vim.ui.select(sessions, { prompt = "agentls sessions (last used first)", format_item = M.session_label }, function(s)
      if not s then
        return
      end
      agentls({ "sessions", "show", "--json", s.id }, function(out)
        local shown = decode_lines(out)[1]
        if not shown then
          ui.notify("cannot read session " .. visible(s.id), vim.log.levels.ERROR)
          return
        end
        vim.ui.select(M.actions(shown), { prompt = "session " .. visible(s.id), format_item = function(a)
          return a.label
        end }, function(a)
          if a then
            a.run()
          end
        end)
      end)
    end)
  end)
end

return M
