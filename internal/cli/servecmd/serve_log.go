package servecmd

import (
	"fmt"
	"os"

	srvlog "github.com/nats-io/nats-server/v2/logger"
	"github.com/nats-io/nats-server/v2/server"
)

// serverLogger makes the embedded server's logger that serve -v asks for,
// as the server's own ConfigureLogger chooses it from o: the
// configuration's log_file (with its size limit and number of files),
// remote_syslog, syslog, or stderr.
//
// serve does not call ConfigureLogger: it installs violationLog, which
// passes every line on to this logger, and the server's SetLoggerV2 closes
// the logger it replaces, so a file logger configured first would stop
// writing its file. Made here, the file logger is only ever wrapped.
func serverLogger(o *server.Options) (server.Logger, error) {
	switch {
	case o.LogFile != "":
		// NewFileLogger ends the process on a file it cannot open:
		// open it first, for an error that names it.
		f, err := os.OpenFile(o.LogFile, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o640)
		if err != nil {
			return nil, fmt.Errorf("log_file: %w", err)
		}
		f.Close()
		l := srvlog.NewFileLogger(o.LogFile, o.Logtime, o.Debug, o.Trace, true, srvlog.LogUTC(o.LogtimeUTC))
		if o.LogSizeLimit > 0 {
			l.SetSizeLimit(o.LogSizeLimit)
		}
		if o.LogMaxFiles > 0 && int64(int(o.LogMaxFiles)) == o.LogMaxFiles {
			l.SetMaxNumFiles(int(o.LogMaxFiles))
		}
		return l, nil
	case o.RemoteSyslog != "":
		return srvlog.NewRemoteSysLogger(o.RemoteSyslog, o.Debug, o.Trace), nil
	case o.Syslog:
		return srvlog.NewSysLogger(o.Debug, o.Trace), nil
	}
	colors := false
	if st, err := os.Stderr.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
		colors = true
	}
	return srvlog.NewStdLogger(o.Logtime, o.Debug, o.Trace, colors, true, srvlog.LogUTC(o.LogtimeUTC)), nil
}
