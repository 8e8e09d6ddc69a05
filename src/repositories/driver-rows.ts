/**
 * A row as the drivers return it, with the columns `numbers` names read as numbers: bigint columns
 * may come back as strings on MySQL. A null stays null.
 */
export function withNumbers<T>(raw: Record<string, unknown>, numbers: ReadonlyArray<keyof T & string>): T {
  const row: Record<string, unknown> = { ...raw };
  for (const column of numbers) row[column] = raw[column] === null ? null : Number(raw[column]);
  return row as unknown as T;
}

/** A JSON array stored as text, or none (an empty list) when the text holds no array. */
export function storedList(text: unknown): unknown[] {
  try {
    const parsed: unknown = JSON.parse(String(text));
    return Array.isArray(parsed) ? parsed : [];
  } catch {
    return [];
  }
}
