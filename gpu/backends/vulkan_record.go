package backends

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"kleinbild/gpu/webgpu"
	"kleinbild/internal/atomicfile"
	"kleinbild/internal/safefile"
)

// vulkanRecordVersion is the format of VulkanRecord files.
const vulkanRecordVersion = 1

// maxVulkanRecordBytes bounds a record file (a kilobyte in practice).
const maxVulkanRecordBytes = 1 << 16

// VulkanRecord is one comparison of the Vulkan backend with WebGPU on the same card, kept in
// the tuning cache folder as vulkan-HASH.json (HASH of the adapter's key).
type VulkanRecord struct {
	Version int    `json:"version"`
	Adapter string `json:"adapter"` // the WebGPU adapter's key (webgpu.Adapter.Key)
	Name    string `json:"name"`    // the card's name, for people reading the file
	// Vulkan is the Vulkan device and driver (vulkan.Identity.Key); VulkanKernels and
	// WebGPUKernels the kernels compared (vulkan.KernelHash, tuningFingerprint).
	Vulkan        string `json:"vulkan"`
	VulkanKernels string `json:"vulkan_kernels"`
	WebGPUKernels string `json:"webgpu_kernels"`
	// Work is each workload's best time per run on both backends.
	Work []WorkTime `json:"work"`
	// RelL2 is the largest rel-L2 difference between the backends' outputs.
	RelL2    float64   `json:"rel_l2"`
	Measured time.Time `json:"measured"`
}

// WorkTime is one workload's time per run on each backend, in seconds.
type WorkTime struct {
	Name   string  `json:"name"`
	WebGPU float64 `json:"webgpu_seconds"`
	Vulkan float64 `json:"vulkan_seconds"`
}

// Totals are the sums of the work's times on WebGPU and on Vulkan.
func (r *VulkanRecord) Totals() (webgpu, vulkan float64) {
	for _, w := range r.Work {
		webgpu += w.WebGPU
		vulkan += w.Vulkan
	}
	return webgpu, vulkan
}

// vulkanRecordPath is the record file of adapter key in dir ("": the tuning cache folder).
func vulkanRecordPath(dir, adapterKey string) (string, error) {
	if dir == "" {
		d, err := webgpu.DefaultTuneDir()
		if err != nil {
			return "", err
		}
		dir = d
	}
	sum := sha256.Sum256([]byte(adapterKey))
	return filepath.Join(dir, "vulkan-"+hex.EncodeToString(sum[:8])+".json"), nil
}

// parseVulkanRecord parses a record file; it fails on anything but a well-formed record of
// this version for adapterKey with plausible times.
func parseVulkanRecord(raw []byte, adapterKey string) (*VulkanRecord, error) {
	var r VulkanRecord
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, fmt.Errorf("backends: Vulkan record: %w", err)
	}
	if r.Version != vulkanRecordVersion {
		return nil, fmt.Errorf("backends: Vulkan record: version %d, want %d", r.Version, vulkanRecordVersion)
	}
	if r.Adapter != adapterKey {
		return nil, errors.New("backends: Vulkan record: written for another adapter")
	}
	for _, w := range r.Work {
		if !(w.WebGPU >= 0 && w.WebGPU < 1e6) || !(w.Vulkan >= 0 && w.Vulkan < 1e6) {
			return nil, errors.New("backends: Vulkan record: implausible times")
		}
	}
	return &r, nil
}

// loadVulkanRecord reads the record of adapterKey in dir; nil when absent or unusable.
func loadVulkanRecord(dir, adapterKey string) *VulkanRecord {
	if adapterKey == "" {
		return nil
	}
	path, err := vulkanRecordPath(dir, adapterKey)
	if err != nil {
		return nil
	}
	raw, err := safefile.ReadRegular(path, maxVulkanRecordBytes)
	if err != nil {
		return nil
	}
	r, err := parseVulkanRecord(raw, adapterKey)
	if err != nil {
		return nil
	}
	return r
}

// saveVulkanRecord writes r atomically into dir ("": the tuning cache folder).
func saveVulkanRecord(dir string, r *VulkanRecord) error {
	path, err := vulkanRecordPath(dir, r.Adapter)
	if err != nil {
		return err
	}
	raw, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return fmt.Errorf("backends: Vulkan record: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("backends: Vulkan record: %w", err)
	}
	err = atomicfile.WriteAtomic(path, func(w *bufio.Writer) error {
		_, err := w.Write(append(raw, '\n'))
		return err
	})
	if err != nil {
		return fmt.Errorf("backends: Vulkan record: %w", err)
	}
	return nil
}
