package clusterwire

// Environment variables that name a client's credential files
// (cluster.Credentials.FromEnv), for processes started without flags (a systemd unit, a container). They hold
// file names, never secrets: a process's environment is shown by "ps e".
const (
	EnvCreds   = "WORKSTEAL_CREDS"    // nkey seed file or NATS .creds file
	EnvTLSCA   = "WORKSTEAL_TLS_CA"   // CA certificate(s) that sign the server's certificate
	EnvTLSCert = "WORKSTEAL_TLS_CERT" // client certificate, for mutual TLS
	EnvTLSKey  = "WORKSTEAL_TLS_KEY"  // its private key
)
