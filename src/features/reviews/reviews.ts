import { perApp } from '../per-app.js';
import { ReviewService } from './review-service.js';

/** The review service of an app (made on first use: only the review tools and CLI need it). */
export const reviewsFor = perApp((app) => new ReviewService(app, app.sessions, app.notifications));
