/**
 * One string of a list, split as WordPress's `wp_parse_list` splits it: on commas and whitespace, empty
 * items dropped (`a, b`, `a ,b`, `a b`, `a,,b` → `a`, `b`). For lists whose items may be names
 * (`names`: an event's categories and tags, where `Live Music` is one name) only commas separate,
 * as the plugin's own list reader does; a run of numeric IDs separated by spaces (`1 2`) still splits.
 */
export function splitList(text: string, names = false): string[] {
  // Each separator alone: the empty items between separators are dropped.
  if (!names) return text.split(/[\s,]/).filter((item) => item !== '');
  return text
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '')
    .flatMap((item) => (/^\d+(\s+\d+)+$/.test(item) ? item.split(/\s+/) : [item]));
}
