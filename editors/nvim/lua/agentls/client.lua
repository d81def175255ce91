-- The connection to the server: starting `agentls serve` with Neovim's
-- built-in LSP client (the capabilities that tell the server what this
-- plugin does, the handlers of handlers/, the commands of the server's code
-- actions), attaching file buffers under the workspace root, and the calls
-- whose form changed between Neovim 0.7 and 0.11+. The client's ID and
-- state live in require("agentls") (client_id, initialized).

local ui = require("agentls.ui")

local M = {}

-- Neovim 0.11 turned client functions into methods and deprecated
-- vim.lsp.start_client (removed in 0.13); 0.7 has only the old forms.
local modern = vim.fn.has("nvim-0.11") == 1

local function start_client(config)
  if modern then
    return vim.lsp.start(config, { attach = false })
  end
  return vim.lsp.start_client(config)
end

function M.request(client, method, params, handler, bufnr)
  if modern then
    return client:request(method, params, handler, bufnr)
  end
  return client.request(method, params, handler, bufnr)
end

local function is_stopped(client)
  if modern then
    return client:is_stopped()
  end
  return client.is_stopped()
end

local function realpath(p)
  return vim.loop.fs_realpath(p) or p
end

-- root_dir is the workspace root: the root_dir option, else the current directory.
function M.root_dir()
  return realpath(require("agentls").config.root_dir or vim.loop.cwd())
end

-- get returns the running client, or nil.
function M.get()
  local id = require("agentls").client_id
  return id and vim.lsp.get_client_by_id(id) or nil
end

local function capabilities(config)
  local caps = vim.lsp.protocol.make_client_capabilities()
  caps.workspace.applyEdit = true
  caps.workspace.workspaceEdit = caps.workspace.workspaceEdit or {}
  caps.workspace.workspaceEdit.documentChanges = true
  -- Announcing annotations (with experimental.agentls) tells the server
  -- that this client confirms annotated edits (E14): only while the review
  -- is on. Without it the server asks with showMessageRequest first.
  if config.confirm_edits then
    caps.workspace.workspaceEdit.changeAnnotationSupport = { groupsOnLabel = false }
  else
    caps.workspace.workspaceEdit.changeAnnotationSupport = nil
  end
  caps.window.workDoneProgress = true
  caps.experimental = { agentls = { saveDocuments = true, editText = true, runEvents = true } }
  return caps
end

-- Code actions carry {uri, range} only: the instruction is asked for, then the command runs.
local function code_action_command(command, ctx)
  require("agentls.execute_command").code_action(command, ctx)
end

-- start starts the server unless it runs; it returns the client's ID.
function M.start()
  local agentls = require("agentls")
  local client = M.get()
  if client and not is_stopped(client) then
    return agentls.client_id
  end
  local cfg = agentls.config
  agentls.initialized = false
  -- reply_later: the review answers workspace/applyEdit when the user
  -- finishes it, also on Neovim 0.7.
  agentls.client_id = require("agentls.reply_later").wrap_start(function()
    return start_client(M.client_config(cfg))
  end)
  return agentls.client_id
end

-- client_config is the client's configuration for vim.lsp.start_client.
function M.client_config(cfg)
  local agentls = require("agentls")
  return {
    name = "agentls",
    cmd = cfg.cmd,
    cmd_env = cfg.cmd_env,
    root_dir = M.root_dir(),
    capabilities = capabilities(cfg),
    flags = { debounce_text_changes = 0 },
    handlers = vim.tbl_extend("force", {}, require("agentls.handlers")),
    commands = {
      ["agentls.plan"] = code_action_command,
      ["agentls.review"] = code_action_command,
      ["agentls.execute"] = code_action_command,
    },
    on_init = function(c, result)
      agentls.initialized = true
      if cfg.on_init then
        cfg.on_init(c, result)
      end
    end,
    on_exit = function(code, signal, id)
      agentls.client_id, agentls.initialized = nil, false
      vim.schedule(function()
        require("agentls.reply_later").forget(id)
        require("agentls.review").cancel_all("the server stopped")
      end)
      if code ~= 0 then
        vim.schedule(function()
          ui.notify(string.format("server exited (code %s, signal %s); see :lua vim.cmd('edit '..vim.lsp.get_log_path())", code, signal), vim.log.levels.WARN)
        end)
      end
    end,
  }
end

-- attach connects a file buffer under the root to the server, starting it.
function M.attach(bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  if not vim.api.nvim_buf_is_valid(bufnr) or vim.bo[bufnr].buftype ~= "" then
    return false
  end
  local name = vim.api.nvim_buf_get_name(bufnr)
  if name == "" or not vim.startswith(realpath(name), M.root_dir() .. "/") then
    return false
  end
  local fts = require("agentls").config.filetypes
  if fts and not vim.tbl_contains(fts, vim.bo[bufnr].filetype) then
    return false
  end
  local id = M.start()
  if not id then
    return false
  end
  -- buf_attach_client returns nothing when the buffer is attached already.
  vim.lsp.buf_attach_client(bufnr, id)
  return vim.lsp.buf_is_attached(bufnr, id)
end

return M
