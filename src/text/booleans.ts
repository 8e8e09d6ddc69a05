/**
 * Boolean words, as the plugin reads them (`tribe_is_truthy` and WordPress's `rest_sanitize_boolean`):
 * `true`, `1`, `yes`, `on` and `false`, `0`, `no`, `off`, in any case and with surrounding spaces.
 * The one reader of boolean words: request input, the settings, and the fields of the plugin's forms.
 *
 * @returns the boolean, or undefined when the value is not a boolean word.
 */
export function parseBooleanWord(value: unknown): boolean | undefined {
  if (typeof value === 'boolean') return value;
  if (value === 1) return true;
  if (value === 0) return false;
  if (typeof value !== 'string') return undefined;
  const word = value.trim().toLowerCase();
  if (TRUE_WORDS.has(word)) return true;
  if (FALSE_WORDS.has(word)) return false;
  return undefined;
}

const TRUE_WORDS = new Set(['true', '1', 'yes', 'on']);
const FALSE_WORDS = new Set(['false', '0', 'no', 'off']);
