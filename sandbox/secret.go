package sandbox

import (
	"path"
	"strings"
)

// IsSecretPath reports whether p, a slash path (workspace-relative or
// absolute), names a file that usually holds credentials or keys: .env,
// .netrc, SSH keys (id_rsa, id_ed25519, …), *.pem, *.key, files under
// .ssh/ or .aws/, and the like. It is the one list the shell analyser
// (cat .env) and the file tools (read_file .env) ask about, so the two
// agree. The match is on the name only and case-insensitive.
func IsSecretPath(p string) bool {
	if p == "" {
		return false
	}
	base := strings.ToLower(path.Base(p))
	switch base {
	case ".env", ".netrc", "_netrc", ".git-credentials", ".pgpass", ".npmrc", ".pypirc",
		".dockercfg", "credentials", "credentials.json", "credentials.db", "shadow", "gshadow",
		"sudoers", "master.key", ".vault-token", ".boto", ".s3cfg", "kubeconfig", "environ",
		"id_rsa", "id_dsa", "id_ecdsa", "id_ed25519", "id_ecdsa_sk", "id_ed25519_sk", "authorized_keys", "hosts.yml":
		return true
	}
	switch path.Ext(base) {
	case ".pem", ".key", ".p12", ".pfx", ".jks", ".keystore", ".kdbx", ".ppk":
		return true
	}
	// Private keys under another name (id_work, id_github) have no
	// extension; their public halves end in .pub.
	if strings.HasPrefix(base, "id_") && !strings.Contains(base, ".") {
		return true
	}
	if strings.HasPrefix(base, ".env.") && !strings.Contains(base, "example") &&
		!strings.Contains(base, "sample") && !strings.Contains(base, "template") ||
		strings.HasPrefix(base, "secrets.") {
		return true
	}
	p = strings.ToLower(p) + "/"
	for _, dir := range []string{".ssh/", ".aws/", ".gnupg/", ".kube/", ".docker/", ".azure/",
		".password-store/", ".config/gh/", ".config/gcloud/", "etc/ssl/private/"} {
		if strings.HasPrefix(p, dir) || strings.Contains(p, "/"+dir) {
			return true
		}
	}
	return false
}
