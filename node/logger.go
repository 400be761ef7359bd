package node

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"

	cmtlog "github.com/cometbft/cometbft/libs/log"
)

// NewLogger returns Ember's slog logger writing to w.
func NewLogger(w io.Writer, level, format string) (*slog.Logger, error) {
	lvl, err := parseLevel(level)
	if err != nil {
		return nil, err
	}
	opts := &slog.HandlerOptions{Level: lvl}
	switch format {
	case "", "text":
		return slog.New(slog.NewTextHandler(w, opts)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, opts)), nil
	}
	return nil, fmt.Errorf("unknown log format %q (want text or json)", format)
}

func parseLevel(s string) (slog.Level, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(strings.ToUpper(s))); err != nil {
		return 0, fmt.Errorf("unknown log level %q (want debug, info, warn or error)", s)
	}
	return l, nil
}

// cometLogger routes CometBFT's logs into slog under module=cometbft, with
// a level of their own (CometBFT logs several lines per block at info).
// Its errors also go to onError, whatever the level: CometBFT reports its
// consensus failure only as a log line (failstop.go).
type cometLogger struct {
	l       *slog.Logger
	level   slog.Level
	onError func(msg string, kv []any)
}

func newCometLogger(l *slog.Logger, level string, onError func(msg string, kv []any)) (cmtlog.Logger, error) {
	lvl, err := parseLevel(level)
	if err != nil {
		return nil, err
	}
	return cometLogger{l: l.With("module", "cometbft"), level: lvl, onError: onError}, nil
}

func (c cometLogger) log(level slog.Level, msg string, kv []any) {
	if level < c.level {
		return
	}
	c.l.Log(context.Background(), level, msg, kv...)
}

func (c cometLogger) Debug(msg string, kv ...any) { c.log(slog.LevelDebug, msg, kv) }
func (c cometLogger) Info(msg string, kv ...any)  { c.log(slog.LevelInfo, msg, kv) }
func (c cometLogger) Error(msg string, kv ...any) {
	c.log(slog.LevelError, msg, kv)
	if c.onError != nil {
		c.onError(msg, kv)
	}
}
func (c cometLogger) With(kv ...any) cmtlog.Logger {
	return cometLogger{l: c.l.With(kv...), level: c.level, onError: c.onError}
}
