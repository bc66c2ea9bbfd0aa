import { PencilRuler, ShieldCheck, Users } from 'lucide-react';
import { Logo } from '../../components/Logo';
import styles from './BrandPanel.module.css';

const FEATURES = [
  { icon: <PencilRuler />, title: 'Advanced annotation tools', text: 'Boxes, polygons, polylines, keypoints and assisted masks.' },
  { icon: <Users />, title: 'Team collaboration', text: 'Shared projects, classes and review stages for the whole team.' },
  { icon: <ShieldCheck />, title: 'Enterprise security', text: 'Private storage per organization, signed and expiring links.' },
];

/** Branding panel of the authentication page, shown at 1200 px and wider (spec section 2). */
export function BrandPanel() {
  return (
    <aside className={styles.panel} aria-label="About Vellum">
      <Logo inverse />
      <div className={styles.headline}>
        <h2>Build image datasets your team can trust.</h2>
        <p>Upload, organise and annotate images together, then export clean datasets.</p>
      </div>
      <div className={styles.preview} aria-hidden="true">
        <div className={styles.image}>
          <div className={`${styles.box} ${styles.boxA}`}>
            <span>vehicle</span>
          </div>
          <div className={`${styles.box} ${styles.boxB}`}>
            <span>person</span>
          </div>
          <div className={`${styles.box} ${styles.boxC}`}>
            <span>sign</span>
          </div>
        </div>
        <div className={styles.previewBar}>
          <span>street_0142.jpg</span>
          <span className={styles.dots}>
            <i />
            <i />
            <i />
          </span>
        </div>
      </div>
      <ul className={styles.features}>
        {FEATURES.map((f) => (
          <li key={f.title} className={styles.feature}>
            <span className={styles.featureIcon} aria-hidden="true">
              {f.icon}
            </span>
            <div>
              <h3>{f.title}</h3>
              <p>{f.text}</p>
            </div>
          </li>
        ))}
      </ul>
      <p className={styles.foot}>© Vellum</p>
    </aside>
  );
}
