// Package settings stores what the app remembers between runs (settings.json in the data
// folder) and knows where that data folder is by default.
package settings

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"kleinbild/engine"
	"kleinbild/internal/atomicfile"
	"kleinbild/internal/safefile"
)

// Settings is what the app remembers between runs (settings.json in the data folder).
type Settings struct {
	ModelDir string `json:"model_dir,omitempty"`
	// Settings are the form's generation settings, in the one saved form of a generation
	// (prompt, negative prompt, size, steps, guidance, schedule, noise, seed, the
	// references), under the keys settings.json has always had.
	engine.Settings
	SeedLocked bool `json:"seed_locked,omitempty"`
	// Count is the number of images per run (0 means 1).
	Count int `json:"count,omitempty"`
	// FormModel is the model folder the steps and guidance were set for; empty means
	// ModelDir (settings from before it was kept).
	FormModel string `json:"form_model,omitempty"`
	// ReportedUnreadable is the set of unreadable gallery files last reported (sorted names
	// joined by "/", which no file name contains), so the notice about them shows once
	// rather than on every start.
	ReportedUnreadable string `json:"reported_unreadable,omitempty"`
	// Device is the compute device chosen in the settings (a backends.Devices ID); empty is
	// automatic.
	Device string `json:"device,omitempty"`
	// Precision is the precision chosen for a device with matrix units: "exact", "fast", or
	// empty for the default (fast on such a device; see the app's runPrecision).
	Precision string `json:"precision,omitempty"`
	// FormHidden is set when the user hid the form's column to give the image the room.
	FormHidden bool `json:"form_hidden,omitempty"`
	// HFToken is the Hugging Face token, kept only when the user asked to remember it.
	HFToken string `json:"hf_token,omitempty"`
	// DownloadDir and DownloadVariant name an unfinished model download to offer resuming.
	DownloadDir     string `json:"download_dir,omitempty"`
	DownloadVariant string `json:"download_variant,omitempty"`
	// ReferenceDir is the folder reference images were last added from (where the file
	// chooser opens).
	ReferenceDir string `json:"reference_dir,omitempty"`
	// LastViewed is the gallery file shown last, shown again on the next start.
	LastViewed string `json:"last_viewed,omitempty"`
	// GalleryOrder is the gallery's sort order (gallery.Order's name); empty: newest first.
	GalleryOrder string `json:"gallery_order,omitempty"`
	// SaveDir is the folder "Save as…" last saved a copy in (where its chooser opens).
	SaveDir string `json:"save_dir,omitempty"`
	// ModelTransformer, ModelTextEncoder and ModelVAE name GGUF or safetensors files that
	// replace those parts of ModelDir (in a ComfyUI models folder, the chosen combination).
	// ModelDir may also be a ComfyUI models folder or a single transformer file.
	ModelTransformer string `json:"model_transformer,omitempty"`
	ModelTextEncoder string `json:"model_text_encoder,omitempty"`
	ModelVAE         string `json:"model_vae,omitempty"`
	// ModelVariant is "distilled" or "base" where the user chose it for a transformer file
	// that does not tell; empty: as the files say.
	ModelVariant string `json:"model_variant,omitempty"`
	// ModelVAEGroups is the GroupNorm group count of ModelVAE (0: the default).
	ModelVAEGroups int `json:"model_vae_groups,omitempty"`
	// Adapters are the LoRA/LoKr adapters of the form's Adapters section, in order.
	Adapters []Adapter `json:"adapters,omitempty"`
	// LoraDir is the "LoRA folder" whose adapter files the app offers.
	LoraDir string `json:"lora_dir,omitempty"`
}

// Adapter is one remembered adapter of the form: its file, strength and switch, and
// whether the user accepted that some of its keys match nothing in the model.
type Adapter struct {
	Path     string  `json:"path"`
	Strength float64 `json:"strength"`
	Off      bool    `json:"off,omitempty"`
	Partial  bool    `json:"partial,omitempty"`
}

// Load reads path. A missing file gives zero settings and no error; a corrupt one gives
// zero settings and an error worth showing (the file is rewritten on the next save).
func Load(path string) (Settings, error) {
	var s Settings
	raw, err := safefile.ReadRegular(path, safefile.MaxConfigBytes)
	if errors.Is(err, os.ErrNotExist) {
		return s, nil
	}
	if err != nil {
		return s, fmt.Errorf("read settings: %w", err)
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		return Settings{}, fmt.Errorf("settings file %s is damaged and was reset: %w", path, err)
	}
	if len(s.Adapters) == 0 {
		s.Adapters = nil // "adapters": [] reads as none, as it is written
	}
	return s, nil
}

// Save writes s to path atomically; a file holding a token is readable by its owner only.
func Save(path string, s Settings) error {
	raw, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return fmt.Errorf("save settings: %w", err)
	}
	write := atomicfile.WriteAtomic
	if s.HFToken != "" {
		write = atomicfile.WritePrivate // private from the start, never through a link
	}
	return write(path, func(w *bufio.Writer) error {
		_, err := w.Write(append(raw, '\n'))
		return err
	})
}
