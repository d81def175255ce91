;;; e2e-eglot.el --- drive agentls from eglot 1.9 in batch Emacs  -*- lexical-binding: t -*-

;; The e2e test cmd/agentls/e2e_emacs_test.go runs this with
;;   emacs --batch -q -l editors/emacs/test/e2e-eglot.el
;; in a workspace whose AGENTLS_E2E_FILE holds an "// agentls: ..." comment
;; above the line AGENTLS_E2E_LINE (1-based).  It starts eglot against
;; `AGENTLS_E2E_BIN serve', runs the "agentls: Execute “…”" code action at
;; that line, answers what eglot asks the user the way a user would (the
;; approval question: Approve; eglot's "Server wants to edit" prompt: yes;
;; the question to save: save the buffer, "I saved them"), waits for the
;; run's result message, and writes what happened to AGENTLS_E2E_RESULT as
;; JSON: the *Messages* buffer, every prompt with its choices and default,
;; any error (eglot's "Timed out" included), and eglot's events buffer (the
;; wire log, for a failure's report).
;;
;; eglot's own handlers do all the protocol work: only the functions they
;; call to ask the user (`completing-read', `y-or-n-p') are replaced, and
;; every wait is an `accept-process-output' loop on a condition, bounded.

(require 'cl-lib)
(require 'json)
(require 'eglot)

(defvar agentls-e2e-prompts nil
  "Every question eglot put to the user, newest first.")
(defvar agentls-e2e-errors nil
  "Errors signalled while driving eglot, newest first.")
(defconst agentls-e2e-wait (string-to-number (or (getenv "AGENTLS_E2E_WAIT") "120"))
  "Seconds any one wait may take before the driver gives up.")

(defun agentls-e2e--env (name)
  (or (getenv name) (error "%s is not set" name)))

(define-derived-mode agentls-e2e-go-mode prog-mode "Go"
  "Go buffers, as far as this test needs a major mode for eglot.")

(defun agentls-e2e--choose (prompt choices)
  "The user's answer to PROMPT among CHOICES."
  (cond
   ((string-match-p "Pick an action" prompt)
    (or (cl-find-if (lambda (c) (string-prefix-p "agentls: Execute “" c)) choices)
        (error "no Execute code action among %S" choices)))
   ((member "Approve" choices) "Approve")
   ((member "I saved them" choices)
    (with-current-buffer (get-file-buffer (agentls-e2e--env "AGENTLS_E2E_FILE"))
      (save-buffer))
    "I saved them")
   (t (error "unexpected question %S %S" prompt choices))))

(defun agentls-e2e--completing-read (prompt collection &optional _pred _req init _hist def &rest _)
  "Answer eglot's `completing-read' as the scripted user, and record it.
What Enter alone would answer is recorded as the default: the initial
input (eglot 1.9 pre-fills a question with its first action), else DEF."
  (let* ((choices (all-completions "" collection))
         (answer (agentls-e2e--choose prompt choices))
         (enter (or (if (consp init) (car init) init) def)))
    (push `((kind . "completing-read") (prompt . ,(substring-no-properties prompt))
            (choices . ,(vconcat choices)) (default . ,(or enter :null)) (answer . ,answer))
          agentls-e2e-prompts)
    answer))

(defun agentls-e2e--y-or-n-p (prompt)
  "Say yes to eglot's confirmation of an edit the user approved."
  (push `((kind . "y-or-n-p") (prompt . ,(substring-no-properties prompt)) (answer . "y"))
        agentls-e2e-prompts)
  t)

(defun agentls-e2e--pause ()
  "Run the idle timers, as the command loop does when the user pauses.
A batch Emacs never goes idle, and eglot sends a buffer's changes
\(didChange) from an idle timer."
  (dolist (timer (copy-sequence timer-idle-list))
    (when (memq timer timer-idle-list)
      (timer-event-handler timer))))

(defun agentls-e2e--wait-for (what pred)
  "Process events until PRED holds; fail after `agentls-e2e-wait' seconds.
Each wait returns as soon as output arrives; the user pauses in between."
  (let ((deadline (+ (float-time) agentls-e2e-wait)))
    (while (and (not (funcall pred)) (< (float-time) deadline))
      (accept-process-output nil 0.2)
      (agentls-e2e--pause))
    (unless (funcall pred)
      (error "waited %ds for %s" agentls-e2e-wait what))))

(defun agentls-e2e--messages-match (regexp)
  (with-current-buffer (messages-buffer)
    (save-excursion
      (goto-char (point-min))
      (re-search-forward regexp nil t))))

(defun agentls-e2e--run ()
  "Open the file, connect eglot, run the Execute code action, wait for the result."
  (let* ((file (agentls-e2e--env "AGENTLS_E2E_FILE"))
         (line (string-to-number (agentls-e2e--env "AGENTLS_E2E_LINE")))
         (bin (agentls-e2e--env "AGENTLS_E2E_BIN")))
    (find-file file)
    (agentls-e2e-go-mode)
    (eglot '(agentls-e2e-go-mode) (cons 'transient (file-name-directory file))
           'eglot-lsp-server (list bin "serve") "go")
    (agentls-e2e--wait-for "eglot to manage the buffer" #'eglot-managed-p)
    (goto-char (point-min))
    (forward-line (1- line))
    ;; As if the user typed M-x eglot-code-actions RET at this line: a
    ;; keyboard event, so eglot asks with `completing-read', not a menu.
    (let ((last-nonmenu-event ?\r))
      (eglot-code-actions (point) nil nil t))
    (agentls-e2e--wait-for "the run's result message"
                           (lambda () (agentls-e2e--messages-match "agentls execute \\(done\\|failed\\|cancelled\\)")))))

(defun agentls-e2e--write-result ()
  (let ((json-encoding-pretty-print t)
        (result `((errors . ,(vconcat (reverse agentls-e2e-errors)))
                  (prompts . ,(vconcat (reverse agentls-e2e-prompts)))
                  (messages . ,(with-current-buffer (messages-buffer)
                                 (buffer-substring-no-properties (point-min) (point-max))))
                  (events . ,(let ((server (ignore-errors (eglot-current-server))))
                               (if (not server) ""
                                 (with-current-buffer (jsonrpc-events-buffer server)
                                   (buffer-substring-no-properties (point-min) (point-max)))))))))
    (with-temp-file (agentls-e2e--env "AGENTLS_E2E_RESULT")
      (insert (json-encode result)))))

(advice-add 'completing-read :override #'agentls-e2e--completing-read)
(advice-add 'y-or-n-p :override #'agentls-e2e--y-or-n-p)
(condition-case err
    (agentls-e2e--run)
  (error (push (error-message-string err) agentls-e2e-errors)))
(agentls-e2e--write-result)
(let ((server (ignore-errors (eglot-current-server))))
  (when server (ignore-errors (eglot-shutdown server nil 5))))
(kill-emacs 0)

;;; e2e-eglot.el ends here
