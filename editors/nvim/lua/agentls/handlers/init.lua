-- The handlers of the agentls client for what the server sends, by
-- method, one file each; what they add on top of Neovim's built-in client
-- (DESIGN.md E13) is said at the top of each file. agentls/runEvent feeds
-- the live run view (runs.lua).

return {
  ["window/showMessageRequest"] = require("agentls.handlers.show_message_request"),
  ["workspace/applyEdit"] = require("agentls.handlers.apply_edit"),
  ["agentls/saveDocuments"] = require("agentls.handlers.save_documents"),
  ["agentls/editText"] = require("agentls.handlers.edit_text"),
  ["$/progress"] = require("agentls.handlers.progress"),
  ["agentls/runEvent"] = require("agentls.runs").event,
}
