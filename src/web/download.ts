import { h } from './dom.js';

/** A button that saves text made in this page as a file (no request: a blob URL). */
export function downloadButton(label: string, filename: string, type: string, content: () => string): HTMLButtonElement {
  return h('button', {
    type: 'button', class: 'download', 'data-download': filename,
    onclick: () => {
      const url = URL.createObjectURL(new Blob([content()], { type }));
      const a = h('a', { href: url, download: filename });
      document.body.append(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(url), 60_000);
    },
  }, label);
}
