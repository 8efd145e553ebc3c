package engine

import (
	"reflect"

	"kleinbild/engine/imageio"
	"kleinbild/engine/inpaint"
	"kleinbild/engine/schema"
)

// Settings are a Request as it is saved (see schema.Settings): SettingsOf and RequestOf
// convert between the two.
type Settings = schema.Settings

// SettingsOf is the saved form of req: the fields of Settings that Request has under the
// same name and type, then the size (WidthPx, HeightPx) and the outpainting.
func SettingsOf(req Request) Settings {
	var s Settings
	copySameFields(reflect.ValueOf(&s).Elem(), reflect.ValueOf(req))
	s.Width, s.Height = req.WidthPx, req.HeightPx
	if o := req.Outpaint; !o.IsZero() {
		s.Outpaint = &[4]int{o.Left, o.Top, o.Right, o.Bottom}
	}
	return s
}

// RequestOf is the request s saves (without adapters: see Settings), as SettingsOf maps it.
func RequestOf(s Settings) Request {
	var req Request
	copySameFields(reflect.ValueOf(&req).Elem(), reflect.ValueOf(s))
	req.WidthPx, req.HeightPx = s.Width, s.Height
	if o := s.Outpaint; o != nil {
		req.Outpaint = inpaint.Padding{Left: o[0], Top: o[1], Right: o[2], Bottom: o[3]}
	}
	return req
}

// copySameFields sets each field of the struct dst that src has under the same name and
// type to src's value.
func copySameFields(dst, src reflect.Value) {
	for i := range src.NumField() {
		f := src.Type().Field(i)
		if d := dst.FieldByName(f.Name); d.IsValid() && d.Type() == f.Type && d.CanSet() {
			d.Set(src.Field(i))
		}
	}
}

// MetadataRequest is the request that made an image, from its metadata (the settings it
// records; adapters are left to the caller, the metadata names them by hash).
func MetadataRequest(m imageio.Metadata) Request { return RequestOf(m.Settings) }
