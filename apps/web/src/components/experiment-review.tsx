// An experiment's interpretation and the critic's review of it (issue 24).
import { Items } from './lists';
import { Empty, Section } from './section';

/** The interpreter's summary and the critic's review of the reading. */
export function ReviewSection({ summary, caveats, review }: { summary: string | null; caveats: readonly string[]; review: { agrees: boolean; disagreements: readonly string[]; summary: string } | null }) {
  return (
    <Section title="Interpretation and review">
      {summary ? (
        <div className="items">
          <h3 className="h4">The interpreter&apos;s summary</h3>
          <p className="prose">{summary}</p>
        </div>
      ) : (
        <Empty>No interpretation yet.</Empty>
      )}
      <Items title="Caveats" items={[...caveats]} />
      {review ? (
        <div className="items" data-testid="critic-review">
          <h3 className="h4">
            The critic&apos;s review <span className={`badge ${review.agrees ? 'good' : 'warn'}`}>{review.agrees ? 'agrees' : 'disagrees'}</span>
          </h3>
          <p className="prose">{review.summary}</p>
          <Items title="Disagreements" items={[...review.disagreements]} />
        </div>
      ) : (
        <Empty>No review yet.</Empty>
      )}
    </Section>
  );
}
