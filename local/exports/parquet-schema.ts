/**
 * Parquet schema of a FOCUS export as a warehouse types it: BilledCost an exact DECIMAL(38, `costScale`)
 * (written as the unscaled integer), every other column an optional UTF-8 string.
 */
export const focusParquetSchema = (columns: readonly string[], costScale: number) => [
  { name: 'root', num_children: columns.length },
  ...columns.map((name) =>
    name === 'BilledCost'
      ? {
          name,
          type: 'FIXED_LEN_BYTE_ARRAY' as const,
          type_length: 16,
          repetition_type: 'OPTIONAL' as const,
          converted_type: 'DECIMAL' as const,
          precision: 38,
          scale: costScale,
        }
      : {
          name,
          type: 'BYTE_ARRAY' as const,
          repetition_type: 'OPTIONAL' as const,
          converted_type: 'UTF8' as const,
        },
  ),
];
