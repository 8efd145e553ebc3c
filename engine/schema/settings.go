// Package schema holds Settings, the one saved and carried form of a generation's
// settings: an image's metadata (engine/imageio), the app's remembered form and its queue
// embed it, and the engine makes a request of it. It sits below both engine and imageio
// and holds no rules: engine.CheckSettings is the one rule entry point.
package schema

// The modes of a generation, as PNG metadata records them (Settings.Mode).
const (
	ModeInpaint  = "inpaint"
	ModeOutpaint = "outpaint"
	// ModeImageToImage repaints the whole image from Strength: inpainting with no mask,
	// which is exactly inpainting with an all-white mask.
	ModeImageToImage = "img2img"
)

// Settings are a generation's settings as they are saved: in a queued job (the app's
// queue.json, in this layout), the app's remembered form (settings.json) or an image's
// PNG metadata (imageio.Metadata, beside the provenance: model, hashes, software, times).
// engine.RequestOf makes the request again, in one place for every front end (Render
// larger, Reuse settings, inpainting's reuse, the queue). What a request holds only while
// it runs is not saved: the latents, the prompt embeddings, the dump and the opened
// adapters (a queue keeps their files, an image their names and hashes).
type Settings struct {
	Prompt          string   `json:"prompt"`
	NegativePrompt  string   `json:"negative_prompt,omitempty"`
	Width           int      `json:"width,omitempty"`
	Height          int      `json:"height,omitempty"`
	Steps           int      `json:"steps,omitempty"`
	Seed            uint64   `json:"seed"`
	Guidance        float64  `json:"guidance,omitempty"`
	Schedule        string   `json:"schedule,omitempty"`
	Noise           string   `json:"noise,omitempty"`
	References      []string `json:"references,omitempty"`
	AdaptersPartial bool     `json:"adapters_partial,omitempty"`
	Image           string   `json:"image,omitempty"`
	Mask            string   `json:"mask,omitempty"`
	Strength        float64  `json:"strength,omitempty"`
	MaskCrop        int      `json:"mask_crop,omitempty"`
	RawUnmasked     bool     `json:"raw_unmasked,omitempty"`
	Outpaint        *[4]int  `json:"outpaint,omitempty"` // left, top, right, bottom px
}

// Mode is the generation's mode: ModeInpaint, ModeOutpaint, ModeImageToImage, or "" for
// text-to-image.
func (s Settings) Mode() string {
	switch {
	case s.Image == "":
		return ""
	case s.Outpaint != nil && *s.Outpaint != [4]int{}:
		return ModeOutpaint
	case s.Mask == "":
		return ModeImageToImage
	default:
		return ModeInpaint
	}
}
