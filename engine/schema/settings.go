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
	Prompt string `json:"prompt"`
	// NegativePrompt is classifier-free guidance's unconditional prompt on base models
	// (diffusers' negative_prompt; "" is the reference's default, the empty prompt).
	// Distilled models run no CFG and ignore it.
	NegativePrompt string `json:"negative_prompt,omitempty"`
	// Width and Height are the output size in pixels; 0 picks it (engine.Request).
	Width  int `json:"width,omitempty"`
	Height int `json:"height,omitempty"`
	// Steps is the number of denoising steps; 0 picks the variant's default.
	Steps int `json:"steps,omitempty"`
	// Seed selects the initial noise, made as Noise says.
	Seed uint64 `json:"seed"`
	// Guidance is the CFG scale for base models (0 picks the default). Ignored by
	// distilled models, but checked for them too.
	Guidance float64 `json:"guidance,omitempty"`
	// Schedule is "flow" (the default, ""), "linear" or "power" (also "power:<alpha>").
	Schedule string `json:"schedule,omitempty"`
	// Noise is the kind of initial noise: "" or "torch" (torch-compatible CPU randn, which
	// depends on the size) or "stable" (size-stable seeds).
	Noise string `json:"noise,omitempty"`
	// References are image files used for image-to-image / multi-reference conditioning.
	References []string `json:"references,omitempty"`
	// AdaptersPartial accepts adapters with keys that match nothing in the model.
	AdaptersPartial bool `json:"adapters_partial,omitempty"`
	// Image, when set, is the picture to repaint (inpainting and outpainting); Mask marks
	// what to repaint (grey >= 128), empty with Outpaint, which repaints the new border.
	Image string `json:"image,omitempty"`
	Mask  string `json:"mask,omitempty"`
	// Strength in (0, 1] picks the start step of the schedule (0: the default).
	Strength float64 `json:"strength,omitempty"`
	// MaskCrop > 0 repaints only the mask's box grown by that many pixels, and pastes it
	// back; 0 repaints the whole picture.
	MaskCrop int `json:"mask_crop,omitempty"`
	// RawUnmasked keeps the decoded pixels outside the mask; by default the original's
	// are pasted back there with a feathered seam.
	RawUnmasked bool `json:"raw_unmasked,omitempty"`
	// Outpaint extends the image by these pixels per side (left, top, right, bottom) on a
	// grey canvas and repaints the new area; nil for none.
	Outpaint *[4]int `json:"outpaint,omitempty"`
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
