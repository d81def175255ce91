-- :checkhealth agentls — is the server there, which version, is a model
-- configured, is the audit log writable, which sandbox layers this machine
-- has (`agentls version --sandbox`). Works with the health API of Neovim
-- 0.7 (health#report_*), 0.8/0.9 (vim.health.report_*) and 0.10+
-- (vim.health.start/ok/…).

local M = {}

local function reporter()
  local h = vim.health
  if h and h.start then
    return h.start, h.ok, h.warn, h.error, h.info
  end
  if h and h.report_start then
    return h.report_start, h.report_ok, h.report_warn, h.report_error, h.report_info
  end
  local fn = function(name)
    return function(...)
      vim.fn["health#report_" .. name](...)
    end
  end
  return fn("start"), fn("ok"), fn("warn"), fn("error"), fn("info")
end

-- binary returns the path of the server binary of cmd ({ "agentls", "serve" }),
-- or nil and what to do about it.
function M.binary(cmd)
  local name = (type(cmd) == "table" and cmd[1]) or "agentls"
  local path = vim.fn.exepath(name)
  if path == "" then
    return nil,
      string.format(
        "the agentls server %q is not on PATH: build it from a clone with `go install ./cmd/agentls` "
          .. "(or `go build -o agentls ./cmd/agentls`), or point setup{ cmd = { \"/path/to/agentls\", \"serve\" } } at it",
        name
      )
  end
  return path
end

local function output(cmd)
  local out = vim.fn.system(cmd)
  return vim.v.shell_error, vim.split(vim.trim(out or ""), "\n", { plain = true })
end

function M.check()
  local start, ok, warn, err, info = reporter()
  local cfg = require("agentls").config
  start("agentls: server")
  local path, why = M.binary(cfg.cmd)
  if not path then
    err(why)
    return
  end
  ok("server binary: " .. path)
  local code, lines = output({ path, "version", "--sandbox" })
  if code ~= 0 then
    err(string.format("`%s version --sandbox` failed (exit %d): %s", path, code, table.concat(lines, " ")))
    return
  end
  ok("version: " .. (lines[1] or "?"))

  start("agentls: model")
  local env = cfg.cmd_env or {}
  local function var(name)
    local v = env[name]
    if v == nil or v == "" then
      v = vim.env[name]
    end
    return v
  end
  local config = (vim.env.XDG_CONFIG_HOME or (vim.env.HOME or "~") .. "/.config") .. "/agentls/config.json"
  local model = var("AGENTLS_MODEL")
  if model and model ~= "" then
    ok("model: " .. model .. " (AGENTLS_MODEL)")
  elseif vim.fn.filereadable(config) == 1 then
    ok("model configuration: " .. config)
  else
    warn("no model configured: set AGENTLS_MODEL (and OPENAI_BASE_URL for a local server) in the environment or in setup{ cmd_env = … }, or write " .. config)
  end
  local base = var("OPENAI_BASE_URL")
  info("endpoint: " .. ((base and base ~= "") and base or "https://api.openai.com/v1 (default)"))
  local key = var("OPENAI_API_KEY")
  if key and key ~= "" then
    ok("API key: set (OPENAI_API_KEY; not shown)")
  else
    info("API key: none in the environment (fine for local servers; OpenAI needs OPENAI_API_KEY)")
  end

  -- "audit log: PATH (writable)" is as it should be (issue 24: it was
  -- warned about); "none (…)" or "PATH: NOT WRITABLE: …" is not.
  for i = 2, #lines do
    local audit = vim.trim(lines[i]):match("^audit log: (.*)$")
    if audit then
      start("agentls: audit log")
      if audit:match(" %(writable%)$") then
        ok("audit log: " .. audit)
      else
        warn("audit log: " .. audit .. " (tool calls are not recorded)")
      end
    end
  end

  start("agentls: sandbox layers")
  for i = 2, #lines do
    local l = vim.trim(lines[i])
    if l ~= "" and l ~= "sandbox layers:" and not l:match("^audit log: ") then
      if l:match("%sactive") then
        ok(l)
      else
        warn(l .. " (the other layers still apply)")
      end
    end
  end
end

return M
