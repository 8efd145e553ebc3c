package engine

import (
	"kleinbild/engine/imageio"
	"kleinbild/engine/schema"
)

// Settings are a Request as it is saved (see schema.Settings); a Request embeds them.
type Settings = schema.Settings

// SettingsOf is the saved form of req: its embedded Settings.
func SettingsOf(req Request) Settings { return req.Settings }

// RequestOf is the request s saves (without adapters: see Settings).
func RequestOf(s Settings) Request { return Request{Settings: s} }

// MetadataRequest is the request that made an image, from its metadata (the settings it
// records; adapters are left to the caller, the metadata names them by hash).
func MetadataRequest(m imageio.Metadata) Request { return RequestOf(m.Settings) }
