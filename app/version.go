package app

// Version is the software version, set at build time with
// -ldflags "-X github.com/emberchain/ember/app.Version=v1.2.3".
var Version = "v0.1.0-dev"
