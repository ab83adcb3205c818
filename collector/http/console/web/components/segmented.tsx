/** A row of toggle buttons choosing one value (or several, with `multi`), grouped under a hidden legend. */
export function Segmented<T extends string>(p: { label: string; options: readonly { id: T; label: string }[]; isOn: (id: T) => boolean; onPick: (id: T) => void }) {
  return (
    <fieldset class="segmented">
      <legend class="sr-only">{p.label}</legend>
      {p.options.map((o) => (
        <button key={o.id} type="button" aria-pressed={p.isOn(o.id)} onClick={() => p.onPick(o.id)}>
          {o.label}
        </button>
      ))}
    </fieldset>
  );
}
