import { useEffect, useRef, useState } from "preact/hooks";

/** A modal asking for a short text (a note, an acknowledgement's comment); Escape cancels. */
export function TextDialog(p: {
  title: string;
  label: string;
  confirm: string;
  required?: boolean;
  onSubmit: (text: string) => Promise<void>;
  onClose: () => void;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const [text, setText] = useState("");
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    const d = ref.current!;
    d.showModal();
    const cancel = () => p.onClose();
    d.addEventListener("close", cancel);
    return () => d.removeEventListener("close", cancel);
  }, []);
  const submit = async (e: Event) => {
    e.preventDefault();
    if (p.required && text.trim() === "") return setError("Write something first.");
    setBusy(true);
    try {
      await p.onSubmit(text.trim());
      ref.current?.close();
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
      setBusy(false);
    }
  };
  return (
    <dialog ref={ref} aria-labelledby="text-dialog-title">
      <form onSubmit={submit}>
        <h2 class="dialog-title" id="text-dialog-title">{p.title}</h2>
        <div class="field">
          <label for="text-dialog-text">{p.label}</label>
          <textarea id="text-dialog-text" class="input" rows={3} value={text} onInput={(e) => setText(e.currentTarget.value)} />
        </div>
        {error ? <div class="banner error">{error}</div> : null}
        <div class="dialog-actions">
          <button type="button" class="btn" onClick={() => ref.current?.close()}>
            Cancel
          </button>
          <button type="submit" class="btn btn-primary" disabled={busy}>
            {p.confirm}
          </button>
        </div>
      </form>
    </dialog>
  );
}
