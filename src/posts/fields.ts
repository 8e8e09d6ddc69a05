/** Input rules shared by events, venues and organizers. */

/** WordPress `sanitize_text_field`: no tags, no line breaks or runs of whitespace, trimmed. */
export function sanitizeTextField(value: string): string {
  return value
    .replace(/<[^>]*>/g, '')
    .replace(/[\r\n\t ]+/g, ' ')
    .trim();
}

/** An absolute http(s) URL, as PHP's FILTER_VALIDATE_URL would accept for a website. */
export function isHttpUrl(value: string): boolean {
  if (value.length > 2048 || /\s/.test(value)) return false;
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}

/** A plausible e-mail address: one @, a dotted domain, no spaces. */
export function isEmail(value: string): boolean {
  return value.length <= 254 && /^[^\s@<>()[\],;:"]+@[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)+$/.test(value);
}

/** The plugin's `tribe_is_truthy`: booleans, and `1`, `true`, `yes`, `on`, `y` in any case. */
export function isTruthy(value: unknown): boolean {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'number') return value !== 0;
  return typeof value === 'string' && /^(1|true|yes|on|y)$/i.test(value.trim());
}
