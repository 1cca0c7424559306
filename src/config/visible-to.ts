/**
 * Who may see a layer over HTTP, as its `visibleTo` declares it (docs/sign-in.md). A caller sees
 * the layer when any listed claim holds one of the listed values, or its static token's label is
 * listed. Stdio serves the local user every layer.
 */
export interface VisibleTo {
  /** Claim name → accepted values: a string claim equal to one, or an array claim holding one. */
  readonly claims: Readonly<Record<string, readonly string[]>>;
  /** Static-token labels (the token file's first column). */
  readonly labels: readonly string[];
}
