package run

import "testing"

// Issue 28 item 10: the run's grid says "1 image", not "1 images".
func TestImagesTextPlural(t *testing.T) {
	if imagesText(1) != "1 image" || imagesText(3) != "3 images" {
		t.Errorf("imagesText: %q %q", imagesText(1), imagesText(3))
	}
}
