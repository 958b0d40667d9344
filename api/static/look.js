// A glance at a picture: a tiny grey thumbnail, how bright it is and how sharp. Live mode
// compares thumbnails to send a frame only when the picture changed; a capture uses brightness
// and sharpness to say "too dark or blurry" instead of a silent bad reading.

const W = 48, H = 36;
const canvas = document.createElement("canvas");
canvas.width = W;
canvas.height = H;

// source: a video, image, bitmap or canvas.
export function frameLook(source) {
  const ctx = canvas.getContext("2d", { willReadFrequently: true });
  ctx.drawImage(source, 0, 0, W, H);
  const pixels = ctx.getImageData(0, 0, W, H).data;
  const grey = new Float32Array(W * H);
  let sum = 0;
  for (let i = 0; i < grey.length; i++) {
    grey[i] = (pixels[4 * i] + pixels[4 * i + 1] + pixels[4 * i + 2]) / 3;
    sum += grey[i];
  }
  // Sharpness: mean absolute Laplacian of the thumbnail. Tiles' digits make strong edges even
  // at 48x36; a shaken or defocused frame loses them.
  let edges = 0;
  for (let y = 1; y < H - 1; y++) {
    for (let x = 1; x < W - 1; x++) {
      const i = y * W + x;
      edges += Math.abs(4 * grey[i] - grey[i - 1] - grey[i + 1] - grey[i - W] - grey[i + W]);
    }
  }
  const mean = sum / grey.length;
  const sharpness = edges / ((W - 2) * (H - 2));
  return { grey, mean, sharpness, dark: mean < 45, blurry: sharpness < 4 };
}

// Mean absolute difference of two thumbnails, in grey levels, above `threshold`?
export function pictureChanged(a, b, threshold) {
  let sum = 0;
  for (let i = 0; i < a.grey.length; i++) sum += Math.abs(a.grey[i] - b.grey[i]);
  return sum / a.grey.length > threshold;
}
